import { setHandler } from '@temporalio/workflow';
import {
  callStatusSignal,
  campaignReportRequestedSignal,
  conversationEndedSignal,
  conversationStartedSignal,
  liveResumeQuery,
  transferStatusSignal,
} from '../definitions';
import type { CallState } from './state';

/**
 * The call's signals, each handed to its state: the provider's status events (the webhook routes
 * send them), a live call's conversation (the API process holding its media stream reports it),
 * transfer events, and a campaign's request for a report before it continues as new; and the query
 * by which that API process learns whether a conversation carries on after a transfer.
 */
export function registerCallHandlers(state: CallState): void {
  setHandler(callStatusSignal, (update) => state.statusReported(update, Date.now()));
  setHandler(conversationStartedSignal, () => state.conversationStarted());
  setHandler(conversationEndedSignal, (result) => state.conversationEnded(result));
  setHandler(campaignReportRequestedSignal, () => state.reportRequested());
  setHandler(transferStatusSignal, (update) => state.transferStatusReported(update));
  setHandler(liveResumeQuery, () => state.liveResume);
}
