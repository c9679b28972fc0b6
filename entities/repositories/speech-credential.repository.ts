import type { DataSource, EntityManager } from 'typeorm';
import { SpeechCredential } from '../speech-credential.entity';
import { repositoryOver } from './repository';

/** The reads and writes of an organization's speech-provider API keys (one per provider, sealed). */
export function speechCredentialStatements(manager: EntityManager) {
  const rows = manager.getRepository(SpeechCredential);
  return {
    /** Sorted by provider. */
    listOf(organizationId: number): Promise<SpeechCredential[]> {
      return rows.find({ where: { organizationId }, order: { provider: 'ASC' } });
    },

    /** In no particular order: what a call's speech selection reads when its media stream opens. */
    allOf(organizationId: number): Promise<SpeechCredential[]> {
      return rows.findBy({ organizationId });
    },

    find(organizationId: number, provider: string): Promise<SpeechCredential | null> {
      return rows.findOneBy({ organizationId, provider });
    },

    /** Stores or replaces the provider's key (concurrent first writes both succeed; the later is kept); reads it back. */
    async put(organizationId: number, provider: string, encryptedApiKey: string): Promise<SpeechCredential> {
      await rows.upsert({ organizationId, provider, encryptedApiKey }, ['organizationId', 'provider']);
      return rows.findOneByOrFail({ organizationId, provider });
    },

    /** False when no key was stored. */
    async delete(organizationId: number, provider: string): Promise<boolean> {
      const { affected } = await rows.delete({ organizationId, provider });
      return Boolean(affected);
    },
  };
}

export const createSpeechCredentialRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, speechCredentialStatements);

export type SpeechCredentialRepository = ReturnType<typeof createSpeechCredentialRepository>;
