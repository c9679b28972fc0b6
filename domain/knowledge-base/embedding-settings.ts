import type { DataSource, EntityManager } from 'typeorm';
import { AddressRefusedError, checkedAddress } from '../../platform/address-guard';
import { findCredential } from '../../entities/repositories/credential.repository';
import { NotFoundError, ValidationError, type ValidationIssue } from '../errors';
import type { EmbeddingSettings, EmbeddingsOutbound } from './embeddings';

export const NO_EMBEDDINGS = 'No embeddings endpoint is configured for this organization';

/** The settings as the API answers them. */
export interface EmbeddingSettingsView {
  base_url: string;
  model: string;
  credential_uuid: string | null;
  batch_size: number;
  updated_at: string;
}

export interface EmbeddingSettingsInput {
  base_url: string;
  model: string;
  credential_uuid?: string | null | undefined;
  batch_size: number;
}

interface SettingsRow {
  base_url: string;
  model: string;
  credential_uuid: string | null;
  batch_size: number;
  updated_at: Date;
}

const SELECT = `SELECT base_url, model, credential_uuid, batch_size, updated_at
                  FROM knowledge_base_embedding_settings WHERE organization_id = $1`;

/** The organization's embeddings endpoint; null when it has none (full-text search only). */
export async function loadEmbeddingSettings(
  db: DataSource | EntityManager,
  organizationId: number,
): Promise<EmbeddingSettings | null> {
  const [row] = await db.query<SettingsRow[]>(SELECT, [organizationId]);
  return row
    ? { baseUrl: row.base_url, model: row.model, credentialUuid: row.credential_uuid, batchSize: row.batch_size }
    : null;
}

const view = (row: SettingsRow): EmbeddingSettingsView => ({
  base_url: row.base_url,
  model: row.model,
  credential_uuid: row.credential_uuid,
  batch_size: row.batch_size,
  updated_at: new Date(row.updated_at).toISOString(),
});

/**
 * The organization's embeddings endpoint, one per organization. Documents processed while it is
 * set are embedded with its model; searches use the vectors of documents embedded with the model
 * currently set, and full text for the rest.
 */
export class KnowledgeBaseEmbeddingSettings {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbound: Pick<EmbeddingsOutbound, 'policy'>,
  ) {}

  async get(organizationId: number): Promise<EmbeddingSettingsView> {
    const [row] = await this.dataSource.query<SettingsRow[]>(SELECT, [organizationId]);
    if (!row) throw new NotFoundError(NO_EMBEDDINGS);
    return view(row);
  }

  /** Sets (or replaces) the endpoint: its address must be one the service may reach, its credential the organization's. */
  async put(organizationId: number, input: EmbeddingSettingsInput): Promise<EmbeddingSettingsView> {
    const issues: ValidationIssue[] = [];
    try {
      await checkedAddress(new URL(input.base_url).hostname, this.outbound.policy);
    } catch (error) {
      // A name that does not resolve now may later; an internal address never becomes public.
      if (error instanceof AddressRefusedError && !/does not resolve/.test(error.message)) {
        issues.push({ loc: ['body', 'base_url'], msg: error.message, type: 'value_error' });
      }
    }
    const credential = input.credential_uuid ?? null;
    if (credential && !(await findCredential(this.dataSource.manager, organizationId, credential))) {
      issues.push({
        loc: ['body', 'credential_uuid'],
        msg: `Credential ${credential} not found in this organization`,
        type: 'value_error',
      });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    const [row] = await this.dataSource.query<SettingsRow[]>(
      `INSERT INTO knowledge_base_embedding_settings (organization_id, base_url, model, credential_uuid, batch_size)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id) DO UPDATE
         SET base_url = EXCLUDED.base_url, model = EXCLUDED.model, credential_uuid = EXCLUDED.credential_uuid,
             batch_size = EXCLUDED.batch_size, updated_at = now()
       RETURNING base_url, model, credential_uuid, batch_size, updated_at`,
      [organizationId, input.base_url, input.model, credential, input.batch_size],
    );
    return view(row as SettingsRow);
  }

  /** Back to full-text search only; 404 when none was set. */
  async remove(organizationId: number): Promise<EmbeddingSettingsView> {
    const [rows] = await this.dataSource.query<[SettingsRow[], number]>(
      `DELETE FROM knowledge_base_embedding_settings WHERE organization_id = $1
       RETURNING base_url, model, credential_uuid, batch_size, updated_at`,
      [organizationId],
    );
    const [row] = rows;
    if (!row) throw new NotFoundError(NO_EMBEDDINGS);
    return view(row);
  }
}
