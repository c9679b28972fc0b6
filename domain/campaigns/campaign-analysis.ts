import type { DataSource } from 'typeorm';
import { createCampaignRepository } from '../../entities/repositories/campaign.repository';
import type { CampaignAnalysisView } from './types';

/** Tags a campaign's report names, most frequent first. */
export const TOP_TAGS = 10;

/**
 * How a campaign's analysed calls went, in one statement over its runs that have an analysis
 * (`annotations.analysis`, read through the partial index that holds only those): the success
 * evaluations, the sentiment split and the most frequent tags. Runs erased since are left out.
 */
export async function campaignAnalysis(dataSource: DataSource, campaignId: number): Promise<CampaignAnalysisView> {
  const figures = await createCampaignRepository({ dataSource }).analysisFigures(campaignId, TOP_TAGS);
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
