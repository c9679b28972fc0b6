import type { DataSource } from 'typeorm';
import { createNotificationRepository } from '../../entities/repositories/notification.repository';
import { VOICEMAIL_CHANNEL, voicemailPayload } from '../../voice/pipeline/voicemail-requests';
import type { VoicemailMessage } from '../../workflows/definitions';
import type { AgentVersionCache } from '../agents/version-cache';
import { renderTemplate } from '../agents/templates';
import type { CallRecords } from './call-records';

/** Speaking rate used to time a voicemail message (words per second of synthesized speech). */
export const VOICEMAIL_WORDS_PER_SECOND = 2.5;

/**
 * An agent's `voicemail_message` rendered with the call's variables (the contact's fields), and
 * how long speaking it takes; null when there is no template or it renders blank.
 */
export function voicemailMessageOf(
  template: unknown,
  initialContext: Record<string, unknown>,
): VoicemailMessage | null {
  if (typeof template !== 'string' || !template.trim()) return null;
  const text = renderTemplate(template, { initialContext }).trim();
  if (!text) return null;
  const words = text.split(/\s+/).length;
  return { text, seconds: Math.max(1, Math.ceil(words / VOICEMAIL_WORDS_PER_SECOND)) };
}

export interface VoicemailDeps {
  dataSource: DataSource;
  records: CallRecords;
  versions: AgentVersionCache;
}

/** The voicemail message a call leaves on a machine that answered, and how a live call is asked to speak it. */
export function createVoicemail({ dataSource, records, versions }: VoicemailDeps) {
  const notifications = createNotificationRepository(dataSource);
  return {
    /** The run's agent's message for this call; null when the agent has none. */
    async messageFor(runId: number): Promise<VoicemailMessage | null> {
      const run = await records.load(runId);
      const { workflowConfigurations } = await versions.get(run.agentVersionId);
      return voicemailMessageOf(workflowConfigurations.voicemail_message, run.initialContext);
    },

    /**
     * Asks the API process holding the call's media stream to speak the message (a PostgreSQL
     * NOTIFY every API process listens for); false when the message is too long to send.
     */
    async requestLive(runId: number, text: string): Promise<boolean> {
      const payload = voicemailPayload({ runId, text });
      if (!payload) return false;
      await notifications.notify(VOICEMAIL_CHANNEL, payload);
      return true;
    },
  };
}
