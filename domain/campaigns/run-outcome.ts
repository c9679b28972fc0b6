import type { Run } from '../../entities/run.entity';
import type { CampaignRepository } from '../../entities/repositories/campaign.repository';
import type { TerminalCallStatus } from '../../workflows/definitions';

/** A run's terminal call status once it is completed (`error` when it has none), else null. */
export const terminalStatusOf = (
  run: Pick<Run, 'isCompleted' | 'gatheredContext'> | null,
): TerminalCallStatus | null =>
  run?.isCompleted ? ((run.gatheredContext.call_status as TerminalCallStatus | undefined) ?? 'error') : null;

/** The terminal call status of a campaign call's run, or null while the call is not over. */
export function createRunOutcome({ campaigns }: { campaigns: CampaignRepository }) {
  return async (runId: number): Promise<TerminalCallStatus | null> => terminalStatusOf(await campaigns.findRun(runId));
}
