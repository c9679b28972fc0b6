import type { AttemptKey, CampaignCounters, CampaignRepository } from '../../entities/repositories/campaign.repository';
import { conversationModeOf } from '../../telephony/conversation-mode';
import { maskSecret } from '../../telephony/credentials';
import type { ProviderContext } from '../../telephony/provider';
import type { Secrets } from '../../telephony/secrets';
import {
  campaignAttemptKey,
  campaignCallWorkflowId,
  DEFAULT_MAX_CALL_DURATION_SECONDS,
} from '../../workflows/definitions';
import { campaignRoute, CampaignRouteError, type CampaignRoute } from './campaign-route';
import type { VoicemailAction } from './settings';

/** One dial of one contact. */
export interface AttemptRef {
  contactId: string;
  attempt: number;
}

export interface AttemptBatch {
  campaignId: number;
  attempts: AttemptRef[];
}

export type PreparedAttempt = AttemptRef &
  (
    | {
        ok: true;
        runId: number;
        maxDurationSeconds: number;
        conversation: 'live' | 'simulated';
        provider: string;
        voicemailAction: VoicemailAction;
        /** The number dialed, masked as responses mask secrets: the campaign's history never holds it whole. */
        maskedNumber: string;
        /** The contact's data row in its uploaded file. */
        contactRow: number;
      }
    | { ok: false; error: string }
  );

export interface PreparedAttempts {
  prepared: PreparedAttempt[];
  counters: CampaignCounters;
  /** Why the campaign cannot dial right now (no usable configuration or agent version), or null. */
  routeError: string | null;
}

export interface AttemptPreparation {
  campaigns: CampaignRepository;
  secrets: Secrets;
  /** What the telephony provider that checks a route's readiness is built with. */
  telephony: Pick<ProviderContext, 'apiBaseUrl' | 'dataSource'>;
}

/** An attempt with the id of the call workflow that dials it. */
export const keyedAttempt = (campaignId: number, { contactId, attempt }: AttemptRef): AttemptKey => ({
  contactId,
  attempt,
  workflowId: campaignCallWorkflowId(campaignId, contactId, attempt),
});

/** A run's `max_call_duration` when its agent version sets a usable one, else the default. */
const maxDurationOf = (value: unknown): number =>
  typeof value === 'number' && value > 0 ? value : DEFAULT_MAX_CALL_DURATION_SECONDS;

/**
 * Creates (once) the attempt rows and their runs for a batch of dials, in one transaction, and
 * returns each run. An attempt that already has a run gets the same run back, so a retry after a
 * crash creates nothing twice. When the campaign cannot dial (no usable configuration or agent
 * version) the attempts come back failed with the reason, also given as `routeError` so the
 * workflow can hold them and try again later. `dialed`: the runs created now.
 */
export async function prepareCampaignAttempts(
  { campaigns, secrets, telephony }: AttemptPreparation,
  { campaignId, attempts }: AttemptBatch,
): Promise<PreparedAttempts & { dialed: number }> {
  return campaigns.transaction(async (tx) => {
    const campaign = await tx.getCampaign(campaignId);
    const keys = attempts.map((item) => keyedAttempt(campaignId, item));
    const inserted = await tx.insertAttempts(campaignId, keys);
    const rows = await tx.lockAttempts(campaignId, keys);

    let route: CampaignRoute | null = null;
    let routeError: string | null = null;
    if (rows.some((row) => row.runId === null)) {
      try {
        route = await campaignRoute(tx, secrets, campaign, telephony);
      } catch (error) {
        if (!(error instanceof CampaignRouteError)) throw error;
        routeError = error.message;
      }
    }

    const lockedRows = new Map(rows.map((row) => [campaignAttemptKey(row.contactId, row.attempt), row]));
    const runIds = new Map<string, number>();
    for (const row of rows) {
      if (row.runId !== null) runIds.set(campaignAttemptKey(row.contactId, row.attempt), row.runId);
    }
    const fresh = route ? rows.filter((row) => row.runId === null) : [];
    if (route && fresh.length > 0) {
      const { version, configuration, callerNumber } = route;
      const ids = await tx.insertRuns(
        fresh.map((row) => {
          const workflowId = campaignCallWorkflowId(campaignId, row.contactId, row.attempt);
          return {
            organizationId: campaign.organizationId,
            agentId: campaign.agentId,
            agentVersionId: version.id,
            name: workflowId,
            provider: configuration.provider,
            callType: 'outbound' as const,
            campaignId,
            campaignAttemptId: row.id,
            telephonyConfigurationId: configuration.id,
            calledNumber: row.phoneNumber,
            callerNumber,
            temporalWorkflowId: workflowId,
            initialContext: {
              ...row.initialContext,
              called_number: row.phoneNumber,
              caller_number: callerNumber,
              direction: 'outbound',
              provider: configuration.provider,
            },
          };
        }),
      );
      await tx.startDialing(fresh.map((row, index) => ({ attemptId: row.id, runId: ids[index] ?? 0 })));
      fresh.forEach((row, index) => {
        runIds.set(campaignAttemptKey(row.contactId, row.attempt), ids[index] ?? 0);
      });
    }
    const counters = await tx.addCounters(campaignId, { queued: inserted, executed: fresh.length });

    // Each run's limit comes from its own agent version (a resumed attempt keeps the version it was created with).
    // So does its conversation mode, from the configuration it dials through.
    const perRun = await tx.dialSettingsOfRuns([...runIds.values()]);
    const maxDuration = new Map(perRun.map((row) => [row.runId, maxDurationOf(row.maxCallDuration)]));
    const modes = new Map(perRun.map((row) => [row.runId, conversationModeOf(row, secrets)]));
    const providers = new Map(perRun.map((row) => [row.runId, row.provider]));
    const prepared = attempts.map(({ contactId, attempt }): PreparedAttempt => {
      const key = campaignAttemptKey(contactId, attempt);
      const runId = runIds.get(key);
      const conversation = runId === undefined ? undefined : modes.get(runId);
      const contact = lockedRows.get(key);
      if (runId === undefined || conversation === undefined || contact === undefined) {
        return { contactId, attempt, ok: false, error: routeError ?? 'The attempt could not be prepared' };
      }
      return {
        contactId,
        attempt,
        ok: true,
        runId,
        maxDurationSeconds: maxDuration.get(runId) ?? DEFAULT_MAX_CALL_DURATION_SECONDS,
        conversation,
        provider: providers.get(runId) ?? 'unknown',
        voicemailAction: campaign.voicemailAction,
        maskedNumber: maskSecret(contact.phoneNumber),
        contactRow: contact.rowNumber,
      };
    });
    return { prepared, counters, routeError, dialed: fresh.length };
  });
}
