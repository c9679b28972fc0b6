import type { DataSource, EntityManager } from 'typeorm';
import type { SearchHit } from './types';

export interface SearchRequest {
  query: string;
  /** Only these documents; undefined: all of the organization's. */
  documentUuids?: readonly string[];
  topK: number;
}

interface HitRow {
  document_id: string;
  file_name: string;
  position: number;
  heading: string;
  content: string;
  page: number | null;
  score: number;
}

/**
 * Full-text search over an organization's completed documents, each in its own language: the
 * query's words, stemmed and stripped of stop words by the document's text search configuration,
 * are OR-ed (a question rarely repeats every word of its answer), and chunks are ranked by
 * `ts_rank` with headings weighted above text and long chunks normalized down. Documents not
 * completed, other organizations' and deleted ones are never searched.
 */
export async function fullTextSearch(
  db: DataSource | EntityManager,
  organizationId: number,
  request: SearchRequest,
): Promise<SearchHit[]> {
  const rows = await db.query<HitRow[]>(
    `WITH documents AS (
       SELECT id, file_name, language FROM knowledge_base_documents
        WHERE organization_id = $1 AND status = 'completed'
          AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
     ),
     queries AS (
       SELECT language,
              to_tsquery('simple', coalesce((
                SELECT string_agg(quote_literal(lexeme), ' | ')
                  FROM unnest(tsvector_to_array(to_tsvector(language::regconfig, $3))) AS lexeme), '')) AS query
         FROM (SELECT DISTINCT language FROM documents) AS languages
     )
     SELECT c.document_id, d.file_name, c.position, c.heading, c.content, c.page,
            ts_rank(c.search_vector, q.query, 1)::float8 AS score
       FROM knowledge_base_chunks c
       JOIN documents d ON d.id = c.document_id
       JOIN queries q ON q.language = d.language
      WHERE c.organization_id = $1 AND c.search_vector @@ q.query
      ORDER BY score DESC, c.document_id, c.position
      LIMIT $4`,
    [organizationId, request.documentUuids ?? null, request.query, request.topK],
  );
  return rows.map((row) => ({
    document_uuid: row.document_id,
    file_name: row.file_name,
    position: row.position,
    heading: row.heading,
    content: row.content,
    page: row.page,
    score: Number(row.score),
  }));
}
