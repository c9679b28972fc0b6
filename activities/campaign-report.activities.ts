import { log } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  campaignCallFinishedSignal,
  campaignReportRequestedSignal,
  type CampaignCallResult,
} from '../workflows/definitions';

export interface CampaignReportDeps {
  /** The worker's client, for signals to a campaign by workflow id. */
  temporal: Client;
}

export function createCampaignReportActivities({ temporal }: CampaignReportDeps) {
  return {
    /**
     * Tells a campaign how one of its calls ended, by workflow id, so the signal reaches the
     * campaign's latest run after continue-as-new. Run again after a crash, it signals twice; the
     * campaign counts only the dial in flight. A campaign that has ended is not an error.
     */
    async reportCampaignCall(result: CampaignCallResult): Promise<void> {
      try {
        await temporal.workflow.getHandle(result.parentWorkflowId).signal(campaignCallFinishedSignal, result);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        log.warn('campaign has ended; call outcome not reported', {
          campaignId: result.campaignId,
          runId: result.runId,
        });
      }
    },

    /**
     * Asks a campaign's calls in flight to report by signal (`campaignReportRequestedSignal`), so
     * that their outcomes reach the campaign's next run. Returns the ids of those that had already
     * ended: their completion reaches the run that asked, which waits for it.
     */
    async askCampaignCallsToReport({ workflowIds }: { workflowIds: string[] }): Promise<string[]> {
      const ended = await Promise.all(
        workflowIds.map(async (workflowId) => {
          try {
            await temporal.workflow.getHandle(workflowId).signal(campaignReportRequestedSignal);
            return null;
          } catch (error) {
            if (error instanceof WorkflowNotFoundError) return workflowId;
            throw error;
          }
        }),
      );
      return ended.filter((workflowId): workflowId is string => workflowId !== null);
    },
  };
}
