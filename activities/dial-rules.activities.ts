import type { DataSource } from 'typeorm';
import { Campaign } from '../entities';
import { claimDial, DNC_SKIPPED, type DialRules, type DialVerdict } from '../domain/compliance/dial-rules';
import { campaignCallWorkflowId } from '../workflows/definitions';
import { CallSetupError } from './call-errors';
import { campaignStatements } from '../entities/repositories/campaign.repository';
import type { AttemptRef, CampaignCounters } from './campaign.activities';

export interface DialRuleDeps {
  dataSource: DataSource;
  /** Unset: the do-not-call list only. */
  rules?: DialRules;
}

/** Why a call was not dialed, as `gathered_context.not_dialed` says. */
export type NotDialedReason = 'do_not_call' | 'frequency_cap';

export type DialCheck = { dial: true } | { dial: false; reason: NotDialedReason };

/** What the rules decided for one campaign dial. */
export type ScreenedDial = AttemptRef &
  ({ verdict: 'dial' } | { verdict: 'do_not_call' } | { verdict: 'capped'; allowedAt: number });

const DEFAULT_RULES: DialRules = { doNotCall: true, perDay: 0, perWeek: 0 };

/** The provider idempotency key of a dial, which also keys its frequency-cap claim. */
export const dialKey = (workflowId: string, attempt: number): string => `${workflowId}:${attempt}`;

/**
 * The dial-time checks: the organization's do-not-call list and its frequency caps, for a single
 * call (in its call workflow, before the dial) and for a campaign's batch (before its calls start,
 * so a listed contact is skipped and a capped one rescheduled without a run or a dial).
 */
export function createDialRuleActivities({ dataSource, rules = DEFAULT_RULES }: DialRuleDeps) {
  return {
    /**
     * Whether the run's call may be dialed now; when it may not, the reason is written to the run
     * (`gathered_context.not_dialed`, with `dial_allowed_at` for a cap) before the call ends unplaced.
     */
    async checkDialRules({
      runId,
      workflowId,
      attempt,
    }: {
      runId: number;
      workflowId: string;
      attempt: number;
    }): Promise<DialCheck> {
      return dataSource.transaction(async (manager) => {
        const [run] = await manager.query<{ organization_id: number; called_number: string | null }[]>(
          `SELECT organization_id, called_number FROM runs WHERE id = $1`,
          [runId],
        );
        if (!run) throw new CallSetupError(`Run ${runId} does not exist`);
        if (!run.called_number) return { dial: true };
        const verdict = await claimDial(
          manager,
          {
            organizationId: run.organization_id,
            phoneNumber: run.called_number,
            dialKey: dialKey(workflowId, attempt),
          },
          rules,
        );
        if (verdict.verdict === 'dial') return { dial: true };
        const reason: NotDialedReason = verdict.verdict === 'do_not_call' ? 'do_not_call' : 'frequency_cap';
        const note = {
          not_dialed: reason,
          ...(verdict.verdict === 'capped' ? { dial_allowed_at: new Date(verdict.allowedAt).toISOString() } : {}),
        };
        await manager.query(
          `UPDATE runs SET gathered_context = COALESCE(gathered_context, '{}'::jsonb) || $2::jsonb WHERE id = $1`,
          [runId, JSON.stringify(note)],
        );
        return { dial: false, reason };
      });
    },

    /**
     * Screens a campaign's batch before its calls start, in one transaction (numbers locked in
     * order, so two campaigns never wait on each other in a cycle). A listed contact's attempt is
     * finished as `dnc_skipped`: processed, failed, counted in `dnc_skipped` and logged. A capped
     * one stays queued for `allowedAt`, counted in `frequency_capped` and logged. Idempotent: a
     * retried screening finds the attempts as it left them and counts nothing twice.
     */
    async screenCampaignDials({
      campaignId,
      attempts,
    }: {
      campaignId: number;
      attempts: AttemptRef[];
    }): Promise<{ dials: ScreenedDial[]; counters: CampaignCounters }> {
      return dataSource.transaction(async (manager) => {
        const campaigns = campaignStatements(manager);
        const campaign = await manager.findOneByOrFail(Campaign, { id: campaignId });
        const batch = JSON.stringify(
          attempts.map(({ contactId, attempt }) => ({
            contact_id: contactId,
            attempt,
            workflow_id: campaignCallWorkflowId(campaignId, contactId, attempt),
          })),
        );
        const inserted = await manager.query<unknown[]>(
          `INSERT INTO campaign_attempts (campaign_id, contact_id, attempt_number, temporal_workflow_id)
           SELECT $1, x.contact_id, x.attempt, x.workflow_id
             FROM jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer, workflow_id text)
           ON CONFLICT (campaign_id, contact_id, attempt_number) DO NOTHING RETURNING id`,
          [campaignId, batch],
        );
        const rows = await manager.query<
          {
            id: number;
            contact_id: string;
            attempt_number: number;
            status: string;
            outcome: string | null;
            run_id: number | null;
            phone_number: string;
          }[]
        >(
          `SELECT a.id, a.contact_id::text, a.attempt_number, a.status, a.outcome, a.run_id, c.phone_number
             FROM campaign_attempts a
             JOIN jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer)
               ON x.contact_id = a.contact_id AND x.attempt = a.attempt_number
             JOIN campaign_contacts c ON c.id = a.contact_id
            WHERE a.campaign_id = $1
            ORDER BY c.phone_number, a.id
              FOR UPDATE OF a`,
          [campaignId, batch],
        );

        const dials: ScreenedDial[] = [];
        let skipped = 0;
        let capped = 0;
        for (const row of rows) {
          const ref = { contactId: row.contact_id, attempt: row.attempt_number };
          // Screened and prepared before (a batch held for want of a route, or a retried dispatch).
          if (row.run_id !== null) {
            dials.push({ ...ref, verdict: 'dial' });
            continue;
          }
          if (row.status === 'finished') {
            dials.push({ ...ref, verdict: row.outcome === DNC_SKIPPED ? 'do_not_call' : 'dial' });
            continue;
          }
          const workflowId = campaignCallWorkflowId(campaignId, row.contact_id, row.attempt_number);
          const verdict: DialVerdict = await claimDial(
            manager,
            {
              organizationId: campaign.organizationId,
              phoneNumber: row.phone_number,
              dialKey: dialKey(workflowId, row.attempt_number),
            },
            rules,
          );
          if (verdict.verdict === 'dial') {
            dials.push({ ...ref, verdict: 'dial' });
          } else if (verdict.verdict === 'do_not_call') {
            dials.push({ ...ref, verdict: 'do_not_call' });
            const finished = await manager.query<unknown[]>(
              `UPDATE campaign_attempts SET status = 'finished', outcome = $2, finished_at = now(), updated_at = now()
                WHERE id = $1 AND status <> 'finished' RETURNING id`,
              [row.id, DNC_SKIPPED],
            );
            if (finished.length === 0) continue;
            skipped += 1;
            await campaigns.appendLog(campaignId, {
              level: 'info',
              event: 'dnc_skipped',
              message: `Contact ${row.contact_id} (attempt ${row.attempt_number}) skipped: the number is on the do-not-call list`,
              details: { contact_id: row.contact_id, attempt: row.attempt_number },
            });
          } else {
            dials.push({ ...ref, verdict: 'capped', allowedAt: verdict.allowedAt });
            const allowedAt = new Date(verdict.allowedAt);
            const deferred = await manager.query<unknown[]>(
              `UPDATE campaign_attempts SET scheduled_for = $2, updated_at = now()
                WHERE id = $1 AND scheduled_for IS DISTINCT FROM $2 RETURNING id`,
              [row.id, allowedAt],
            );
            if (deferred.length === 0) continue;
            capped += 1;
            await campaigns.appendLog(campaignId, {
              level: 'info',
              event: 'frequency_capped',
              message:
                `Contact ${row.contact_id} (attempt ${row.attempt_number}) put off until ${allowedAt.toISOString()}: ` +
                `the number reached the frequency cap (${verdict.perDay} a day, ${verdict.perWeek} a week)`,
              details: {
                contact_id: row.contact_id,
                attempt: row.attempt_number,
                allowed_at: allowedAt.toISOString(),
                per_day: verdict.perDay,
                per_week: verdict.perWeek,
              },
            });
          }
        }
        await manager.query(
          `UPDATE campaigns SET total_queued_count = total_queued_count + $2, processed_rows = processed_rows + $3,
                  failed_rows = failed_rows + $3, dnc_skipped_count = dnc_skipped_count + $3,
                  frequency_capped_count = frequency_capped_count + $4, updated_at = now()
            WHERE id = $1`,
          [campaignId, inserted.length, skipped, capped],
        );
        return { dials, counters: campaigns.countersOf(await manager.findOneByOrFail(Campaign, { id: campaignId })) };
      });
    },
  };
}
