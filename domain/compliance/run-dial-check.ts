import type { DialRuleRepository } from '../../entities/repositories/dial-rule.repository';
import { claimDial, type DialRules } from './dial-rules';

/** Why a call was not dialed, as `gathered_context.not_dialed` says. */
export type NotDialedReason = 'do_not_call' | 'frequency_cap';

export type DialCheck = { dial: true } | { dial: false; reason: NotDialedReason };

/** The provider idempotency key of a dial, which also keys its frequency-cap claim. */
export const dialKey = (workflowId: string, attempt: number): string => `${workflowId}:${attempt}`;

/**
 * Whether a run's call may be dialed now, in one transaction; when it may not, the reason is
 * written to the run (`gathered_context.not_dialed`, with `dial_allowed_at` for a cap). Null when
 * the run does not exist.
 */
export async function checkRunDial(
  dialRules: DialRuleRepository,
  rules: DialRules,
  { runId, workflowId, attempt }: { runId: number; workflowId: string; attempt: number },
): Promise<DialCheck | null> {
  return dialRules.transaction(async (dial, manager) => {
    const run = await dial.runToDial(runId);
    if (!run) return null;
    if (!run.called_number) return { dial: true };
    const verdict = await claimDial(
      manager,
      { organizationId: run.organization_id, phoneNumber: run.called_number, dialKey: dialKey(workflowId, attempt) },
      rules,
    );
    if (verdict.verdict === 'dial') return { dial: true };
    const reason: NotDialedReason = verdict.verdict === 'do_not_call' ? 'do_not_call' : 'frequency_cap';
    await dial.noteOnRun(runId, {
      not_dialed: reason,
      ...(verdict.verdict === 'capped' ? { dial_allowed_at: new Date(verdict.allowedAt).toISOString() } : {}),
    });
    return { dial: false, reason };
  });
}
