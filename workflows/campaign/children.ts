import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { SearchAttributePair } from '@temporalio/common';
import { condition, log, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import type { PreparedAttempt } from '../../activities/campaign.activities';
import { callWorkflow } from '../call.workflow';
import { campaignCallWorkflowId, type CallOutcome, type CampaignCallLink } from '../definitions';
import { campaignActivities, reportActivities } from './activities';
import type { CampaignTracker } from './tracker';
import { AgentIdAttribute, CampaignIdAttribute, OrganizationIdAttribute } from '../search-attributes';
import { callSummary } from './ui-metadata';

/**
 * The campaign's own organization, agent and campaign search attributes, for its calls: an operator
 * lists a campaign's calls by outcome with `CampaignId=3 AND CallStatus="busy"`.
 */
function inheritedSearchAttributes(): SearchAttributePair[] {
  const own = workflowInfo().typedSearchAttributes;
  return [CampaignIdAttribute, OrganizationIdAttribute, AgentIdAttribute].flatMap((key): SearchAttributePair[] => {
    const value = own.get(key);
    return value === undefined ? [] : [{ key, value }];
  });
}

/**
 * The campaign's child call workflows. The campaign learns a call's outcome from its completion;
 * before it continues as new, it asks the children still in flight to report by signal, by
 * workflow id, which reaches the next run.
 */
export class CampaignCalls {
  /** Child starts under way: awaited before the run ends or continues as new. */
  private readonly starting = new Set<Promise<void>>();
  /** Workflow ids of this run's children whose completion has not arrived (and who were not asked to signal). */
  private readonly completionDue = new Set<string>();

  constructor(private readonly tracker: CampaignTracker) {}

  get startingCount(): number {
    return this.starting.size;
  }

  /** Starts one prepared dial as a child call workflow, without waiting for the start. */
  start(dial: PreparedAttempt & { ok: true }, link: CampaignCallLink): void {
    const started = this.startChild(dial, link).finally(() => this.starting.delete(started));
    this.starting.add(started);
  }

  /** Resolves once every start under way has been made (or reported failed). */
  async startsSettled(): Promise<void> {
    await Promise.all([...this.starting]);
  }

  /**
   * Asks the children whose completion is due to report by signal, which reaches the next run;
   * those that have ended already report by their completion, which reaches this run only: it is
   * waited for.
   */
  async askToReport(): Promise<void> {
    const workflowIds = [...this.completionDue];
    if (workflowIds.length === 0) return;
    const ended = new Set(await reportActivities.askCampaignCallsToReport({ workflowIds }));
    for (const workflowId of workflowIds) if (!ended.has(workflowId)) this.completionDue.delete(workflowId);
    await condition(() => [...ended].every((workflowId) => !this.completionDue.has(workflowId)));
  }

  /** A start that fails reports the attempt failed. */
  private async startChild(dial: PreparedAttempt & { ok: true }, link: CampaignCallLink): Promise<void> {
    const { campaignId } = this.tracker;
    const workflowId = campaignCallWorkflowId(campaignId, dial.contactId, dial.attempt);
    try {
      const child = await startChild(callWorkflow, {
        workflowId,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...callSummary(campaignId, dial),
        typedSearchAttributes: inheritedSearchAttributes(),
        args: [
          {
            runId: dial.runId,
            attempt: dial.attempt,
            maxDurationSeconds: dial.maxDurationSeconds,
            campaign: link,
            conversation: dial.conversation,
            provider: dial.provider,
            voicemailAction: dial.voicemailAction,
          },
        ],
      });
      this.awaitCompletion(workflowId, link, dial.runId, child.result());
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        // Started by an earlier run of this campaign: its report comes, unless it came already.
        // (Asked again: that run may have ended other than by continuing as new, as in a reset.)
        const ended = await reportActivities.askCampaignCallsToReport({ workflowIds: [workflowId] });
        const outcome = await campaignActivities.campaignRunOutcome({ runId: dial.runId });
        if (outcome) this.tracker.receive({ ...link, runId: dial.runId, outcome });
        // Ended without writing an outcome (terminated): no report will come.
        else if (ended.length > 0) this.tracker.receive({ ...link, runId: dial.runId, outcome: 'error' });
        return;
      }
      log.warn('campaign call could not be started', { campaignId, error: String(error) });
      this.tracker.receive({ ...link, runId: dial.runId, outcome: 'error', initiationError: String(error) });
    }
  }

  /** The outcome of a child of this run, from its completion (a child that failed or was terminated: `error`). */
  private awaitCompletion(workflowId: string, link: CampaignCallLink, runId: number, result: Promise<CallOutcome>) {
    this.completionDue.add(workflowId);
    void result
      .then(
        (outcome) => this.tracker.receive({ ...link, runId, outcome: outcome.callStatus }),
        (error: unknown) => {
          log.warn('campaign call did not complete', { campaignId: link.campaignId, workflowId, error: String(error) });
          this.tracker.receive({ ...link, runId, outcome: 'error' });
        },
      )
      .finally(() => this.completionDue.delete(workflowId));
  }
}
