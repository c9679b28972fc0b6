import type { CampaignCounters, CampaignRepository } from '../../entities/repositories/campaign.repository';
import { claimDial, DNC_SKIPPED, type DialRules, type DialVerdict } from '../compliance/dial-rules';
import { dialKey } from '../compliance/run-dial-check';
import { keyedAttempt, type AttemptBatch, type AttemptRef } from './prepare-attempts';

/** What the rules decided for one campaign dial. */
export type ScreenedDial = AttemptRef &
  ({ verdict: 'dial' } | { verdict: 'do_not_call' } | { verdict: 'capped'; allowedAt: number });

/**
 * Screens a campaign's batch before its calls start, in one transaction (numbers locked in
 * order, so two campaigns never wait on each other in a cycle). A listed contact's attempt is
 * finished as `dnc_skipped`: processed, failed, counted in `dnc_skipped` and logged. A capped
 * one stays queued for `allowedAt`, counted in `frequency_capped` and logged. Idempotent: a
 * retried screening finds the attempts as it left them and counts nothing twice.
 */
export async function screenCampaignDials(
  campaigns: CampaignRepository,
  rules: DialRules,
  { campaignId, attempts }: AttemptBatch,
): Promise<{ dials: ScreenedDial[]; counters: CampaignCounters }> {
  return campaigns.transaction(async (tx, manager) => {
    const campaign = await tx.getCampaign(campaignId);
    const keys = attempts.map((item) => keyedAttempt(campaignId, item));
    const inserted = await tx.insertAttempts(campaignId, keys);
    const rows = await tx.lockAttemptsToScreen(campaignId, keys);

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
      const { workflowId } = keyedAttempt(campaignId, ref);
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
        if (!(await tx.finishUndialed(row.id, DNC_SKIPPED))) continue;
        skipped += 1;
        await tx.appendLog(campaignId, {
          level: 'info',
          event: 'dnc_skipped',
          message: `Contact ${row.contact_id} (attempt ${row.attempt_number}) skipped: the number is on the do-not-call list`,
          details: { contact_id: row.contact_id, attempt: row.attempt_number },
        });
      } else {
        dials.push({ ...ref, verdict: 'capped', allowedAt: verdict.allowedAt });
        const allowedAt = new Date(verdict.allowedAt);
        if (!(await tx.deferAttempt(row.id, allowedAt))) continue;
        capped += 1;
        await tx.appendLog(campaignId, {
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
    await tx.addScreenedCounters(campaignId, { queued: inserted, skipped, capped });
    return { dials, counters: tx.countersOf(await tx.getCampaign(campaignId)) };
  });
}
