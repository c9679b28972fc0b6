import type { DataSource } from 'typeorm';
import type { SpeechCredential } from '../../entities';
import {
  createSpeechCredentialRepository,
  type SpeechCredentialRepository,
} from '../../entities/repositories/speech-credential.repository';
import { maskSecret } from '../../telephony/credentials';
import type { Secrets } from '../../telephony/secrets';
import type { Actor } from '../actor';
import { NotFoundError, ValidationError } from '../errors';

export const SPEECH_CREDENTIAL_NOT_FOUND = 'No API key is stored for this speech provider';

/** A stored key as the API answers it: masked. */
export interface SpeechCredentialView {
  provider: string;
  api_key: string;
  created_at: string;
  updated_at: string;
}

/**
 * The organization's own speech-provider API keys, sealed under SECRETS_KEY and answered masked; a
 * mask sent back keeps the stored key, and no mask is ever stored as a key.
 */
export class SpeechCredentials {
  private readonly credentials: SpeechCredentialRepository;

  constructor(
    dataSource: DataSource,
    private readonly secrets: Secrets,
  ) {
    this.credentials = createSpeechCredentialRepository(dataSource);
  }

  /** Sorted by provider. */
  async list(caller: Actor): Promise<SpeechCredentialView[]> {
    return (await this.credentials.listOf(caller.organizationId)).map((row) => this.view(row));
  }

  /** 404 when none is stored. */
  async get(caller: Actor, provider: string): Promise<SpeechCredentialView> {
    const row = await this.credentials.find(caller.organizationId, provider);
    if (!row) throw new NotFoundError(SPEECH_CREDENTIAL_NOT_FOUND);
    return this.view(row);
  }

  /** Stores or replaces the key; `created` when the organization had none for the provider. */
  async put(
    caller: Actor,
    provider: string,
    apiKey: string,
  ): Promise<{ credential: SpeechCredentialView; created: boolean }> {
    const stored = await this.credentials.find(caller.organizationId, provider);
    if (apiKey.includes('*')) {
      if (stored && apiKey === this.masked(stored)) return { credential: this.view(stored), created: false };
      throw new ValidationError([
        {
          loc: ['body', 'api_key'],
          msg: stored
            ? 'This is not the mask of the stored key; send the full key to replace it.'
            : 'This looks like a masked key and no key is stored for this provider; send the full key.',
          type: 'value_error',
        },
      ]);
    }
    const saved = await this.credentials.put(caller.organizationId, provider, this.secrets.seal(apiKey));
    return { credential: this.view(saved), created: !stored };
  }

  /** 404 when none is stored. */
  async delete(caller: Actor, provider: string): Promise<void> {
    if (!(await this.credentials.delete(caller.organizationId, provider))) {
      throw new NotFoundError(SPEECH_CREDENTIAL_NOT_FOUND);
    }
  }

  private masked(row: SpeechCredential): string {
    return maskSecret(this.secrets.open(row.encryptedApiKey));
  }

  private view(row: SpeechCredential): SpeechCredentialView {
    return {
      provider: row.provider,
      api_key: this.masked(row),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }
}
