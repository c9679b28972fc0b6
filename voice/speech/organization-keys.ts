import type { DataSource } from 'typeorm';
import { createSpeechCredentialRepository } from '../../entities/repositories/speech-credential.repository';
import type { Secrets } from '../../telephony/secrets';
import { SpeechProviderError } from './errors';
import { isKeyedSpeechProvider, type OrganizationSpeechKeys } from './speech-keys';

/**
 * The organization's own speech API keys, decrypted, for `selectSpeech` when a call's media
 * stream opens. A key that cannot be decrypted (SECRETS_KEY changed) fails loudly instead of
 * falling back to the service's key, which would bill the operator for the organization's calls.
 */
export async function loadOrganizationSpeechKeys(
  dataSource: DataSource,
  secrets: Pick<Secrets, 'open'>,
  organizationId: number,
): Promise<OrganizationSpeechKeys> {
  const rows = await createSpeechCredentialRepository(dataSource).allOf(organizationId);
  const keys: OrganizationSpeechKeys = {};
  for (const row of rows) {
    // The table's CHECK constraint admits only keyed providers; this narrows the type.
    if (!isKeyedSpeechProvider(row.provider)) continue;
    try {
      keys[row.provider] = secrets.open(row.encryptedApiKey);
    } catch (cause) {
      throw new SpeechProviderError(
        row.provider,
        'configuration',
        "the organization's API key cannot be decrypted (was SECRETS_KEY changed?)",
        { cause },
      );
    }
  }
  return keys;
}
