import type { DataSource } from 'typeorm';
import {
  createKnowledgeBaseRepository,
  type EmbeddingSettingsRow,
  type KnowledgeBaseRepository,
  type KnowledgeBaseStatements,
} from '../../entities/repositories/knowledge-base.repository';
import { AddressRefusedError, checkedAddress } from '../../platform/address-guard';
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

/** The stored endpoint as processing and search use it; null when the organization has none (full-text search only). */
export const embeddingSettingsFrom = (row: EmbeddingSettingsRow | null): EmbeddingSettings | null =>
  row
    ? { baseUrl: row.base_url, model: row.model, credentialUuid: row.credential_uuid, batchSize: row.batch_size }
    : null;

/** The organization's embeddings endpoint; null when it has none (full-text search only). */
export async function loadEmbeddingSettings(
  reads: Pick<KnowledgeBaseStatements, 'embeddingSettingsOf'>,
  organizationId: number,
): Promise<EmbeddingSettings | null> {
  return embeddingSettingsFrom(await reads.embeddingSettingsOf(organizationId));
}

const view = (row: EmbeddingSettingsRow): EmbeddingSettingsView => ({
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
  private readonly settings: KnowledgeBaseRepository;

  constructor(
    dataSource: DataSource,
    private readonly outbound: Pick<EmbeddingsOutbound, 'policy'>,
  ) {
    this.settings = createKnowledgeBaseRepository(dataSource);
  }

  async get(organizationId: number): Promise<EmbeddingSettingsView> {
    const row = await this.settings.embeddingSettingsOf(organizationId);
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
    if (credential && !(await this.settings.credentialExists(organizationId, credential))) {
      issues.push({
        loc: ['body', 'credential_uuid'],
        msg: `Credential ${credential} not found in this organization`,
        type: 'value_error',
      });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    const row = await this.settings.putEmbeddingSettings(organizationId, {
      baseUrl: input.base_url,
      model: input.model,
      credentialUuid: credential,
      batchSize: input.batch_size,
    });
    return view(row);
  }

  /** Back to full-text search only; 404 when none was set. */
  async remove(organizationId: number): Promise<EmbeddingSettingsView> {
    const row = await this.settings.deleteEmbeddingSettings(organizationId);
    if (!row) throw new NotFoundError(NO_EMBEDDINGS);
    return view(row);
  }
}
