import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import {
  campaignCallAnalysedSignal,
  campaignCallFinishedSignal,
  campaignProgressQuery,
  cancelCampaignUpdate,
  configureCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type CampaignSettings,
  type CampaignState,
} from '../definitions';
import { campaignActivities } from './activities';
import { settingsChangeProblem } from '../../domain/campaigns/settings';
import type { CampaignRun } from './run';

const conflict = (state: CampaignState) =>
  ApplicationFailure.create({ type: 'CampaignStateConflict', message: `Campaign is ${state}`, nonRetryable: true });

/**
 * The campaign's Signal, Query and Updates. Validators reject a wrong state (the API answers 409
 * naming it) and invalid settings, so neither enters the history; handlers change the state at
 * once, then write it (after the campaign was opened) before the Update answers.
 */
export function registerCampaignHandlers(run: CampaignRun): void {
  const { tracker, writes, campaignId } = run;
  const requireState =
    (...allowed: CampaignState[]) =>
    (): void => {
      if (!allowed.includes(tracker.state)) throw conflict(tracker.state);
    };

  setHandler(campaignCallFinishedSignal, (result) => tracker.receive(result));
  setHandler(campaignCallAnalysedSignal, (analysis) => {
    if (tracker.analysed(analysis) && run.opened) run.showDetails(tracker.closed ? tracker.progress() : undefined);
  });
  setHandler(campaignProgressQuery, () => tracker.dialingState());

  /** An Update that moves the campaign from one of `from` to `to` and logs `event`. */
  const transitionOn = (
    update: typeof pauseCampaignUpdate,
    from: CampaignState[],
    to: CampaignState,
    event: string,
    message: string,
    beforeWrite?: () => void,
  ) =>
    setHandler(
      update,
      async () => {
        requireState(...from)();
        beforeWrite?.();
        await writes.transition(from, to, { level: 'info', event, message });
        return tracker.state;
      },
      { validator: requireState(...from) },
    );

  transitionOn(pauseCampaignUpdate, ['running'], 'paused', 'campaign_paused', 'Campaign paused');
  transitionOn(resumeCampaignUpdate, ['paused'], 'running', 'campaign_resumed', 'Campaign resumed', () =>
    tracker.resume(),
  );
  transitionOn(
    cancelCampaignUpdate,
    ['draft', 'running', 'paused'],
    'cancelled',
    'campaign_cancelled',
    'Campaign cancelled',
  );
  setHandler(
    configureCampaignUpdate,
    async (change) => {
      requireState('paused')();
      await condition(() => run.opened);
      tracker.configure(change);
      await writes.serially(() => campaignActivities.saveCampaignSettings({ campaignId, change }));
      return tracker.state;
    },
    {
      validator: (change: Partial<CampaignSettings>) => {
        requireState('paused')();
        const problem = settingsChangeProblem(change);
        if (problem !== null) {
          throw ApplicationFailure.create({ type: 'InvalidCampaignSettings', message: problem, nonRetryable: true });
        }
      },
    },
  );
}
