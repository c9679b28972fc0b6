import type { DataSource } from 'typeorm';
import type { CampaignAnalysisView } from './types';

/** Tags a campaign's report names, most frequent first. */
export const TOP_TAGS = 10;

interface AggregateRow {
  analyzed_calls: number;
  evaluated_calls: number;
  successful_calls: number;
  positive: number;
  neutral: number;
  negative: number;
  top_tags: { tag: string; calls: number }[];
}

/** The campaign report's one statement: `$1` the campaign, `$2` how many tags it names. */
export const CAMPAIGN_ANALYSIS_SQL = `WITH analyzed AS MATERIALIZED (
     SELECT annotations -> 'analysis' AS analysis, annotations -> 'tags' AS tags
       FROM runs
      WHERE campaign_id = $1 AND annotations ? 'analysis' AND erased_at IS NULL)
   SELECT count(*)::int AS analyzed_calls,
          count(*) FILTER (WHERE analysis ? 'success')::int AS evaluated_calls,
          count(*) FILTER (WHERE analysis -> 'success' -> 'successful' = 'true'::jsonb)::int AS successful_calls,
          count(*) FILTER (WHERE analysis ->> 'sentiment' = 'positive')::int AS positive,
          count(*) FILTER (WHERE analysis ->> 'sentiment' = 'neutral')::int AS neutral,
          count(*) FILTER (WHERE analysis ->> 'sentiment' = 'negative')::int AS negative,
          coalesce((SELECT jsonb_agg(jsonb_build_object('tag', tag, 'calls', calls) ORDER BY calls DESC, tag)
                      FROM (SELECT tag, count(*)::int AS calls
                              FROM analyzed,
                                   jsonb_array_elements_text(CASE WHEN jsonb_typeof(tags) = 'array' THEN tags
                                                                  ELSE '[]'::jsonb END) AS tag
                             GROUP BY tag ORDER BY calls DESC, tag LIMIT $2) top), '[]'::jsonb) AS top_tags
     FROM analyzed`;

/**
 * How a campaign's analysed calls went, in one statement over its runs that have an analysis
 * (`annotations.analysis`, read through the partial index that holds only those): the success
 * evaluations, the sentiment split and the most frequent tags. Runs erased since are left out.
 */
export async function campaignAnalysis(dataSource: DataSource, campaignId: number): Promise<CampaignAnalysisView> {
  const [row] = await dataSource.query<AggregateRow[]>(CAMPAIGN_ANALYSIS_SQL, [campaignId, TOP_TAGS]);
  const figures = row as AggregateRow;
  return {
    analyzed_calls: figures.analyzed_calls,
    evaluated_calls: figures.evaluated_calls,
    successful_calls: figures.successful_calls,
    success_rate:
      figures.evaluated_calls > 0
        ? Math.round((figures.successful_calls / figures.evaluated_calls) * 1000) / 1000
        : null,
    sentiment: { positive: figures.positive, neutral: figures.neutral, negative: figures.negative },
    top_tags: figures.top_tags,
  };
}
