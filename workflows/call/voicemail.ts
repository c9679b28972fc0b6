import { condition, log, proxyLocalActivities } from '@temporalio/workflow';
import type { createCallActivities } from '../../activities/call.activities';
import { ACTIVITY_POLICIES } from '../activity-policies';
import type { VoicemailMessage } from '../definitions';
import { endWith, HANGUP_GRACE_MS, type CallRun, type PhaseResult } from './call-run';

// The voicemail steps: a database read, and a notification to the API process holding a live call's stream.
const voicemailSteps = proxyLocalActivities<ReturnType<typeof createCallActivities>>(ACTIVITY_POLICIES.voicemailStep);

/**
 * Beyond a live voicemail message's estimated length, how long its playing may take to be reported:
 * text-to-speech starts it, and the stream plays it at the caller stream's pace.
 */
const LIVE_VOICEMAIL_GRACE_MS = 15_000;

/**
 * A machine answered: leave the agent's message after the beep, or hang up. Either way the call's
 * status is `voicemail`. On a live call the API process holding the media stream speaks the message
 * and reports the conversation ended by `voicemail`; the message counts as left only then, never
 * when the stream could not play it.
 */
export async function voicemail(call: CallRun): Promise<PhaseResult> {
  const { input, state, runId } = call;
  const message = input.voicemailAction === 'leave_message' ? await voicemailMessageOf(runId) : null;
  let left: VoicemailMessage | undefined;
  if (message && input.conversation === 'live') {
    if (await requestLiveVoicemail(runId, message.text)) {
      const played = () => state.conversation !== undefined || state.ended;
      await condition(played, message.seconds * 1000 + LIVE_VOICEMAIL_GRACE_MS, { summary: 'voicemail message' });
      // A box that hung up: the stream's report of what was played follows its final status.
      if (!state.conversation && state.ended) await condition(() => state.conversation !== undefined, HANGUP_GRACE_MS);
    }
    if (state.conversation?.endedBy === 'voicemail') left = message;
  } else if (message) {
    // Speaking takes the message's length; a box that hangs up first ends it.
    await condition(() => state.ended, message.seconds * 1000);
    left = message;
  }
  if (!state.ended) await call.hangup();
  await call.finalStatus();
  const spokenSeconds = Math.round((Date.now() - (state.answeredAt ?? Date.now())) / 1000);
  return endWith({
    callStatus: 'voicemail',
    durationSeconds: state.final?.durationSeconds ?? spokenSeconds,
    voicemail: left,
  });
}

/** The agent's voicemail message for the call; none when it has none or it cannot be read. */
async function voicemailMessageOf(runId: number): Promise<VoicemailMessage | null> {
  try {
    return await voicemailSteps.voicemailMessage({ runId });
  } catch (error) {
    log.error('voicemail message could not be read', { runId, error: String(error) });
    return null;
  }
}

/** Asks the process holding the call's media stream to speak the message; false when it could not be asked. */
async function requestLiveVoicemail(runId: number, text: string): Promise<boolean> {
  try {
    return await voicemailSteps.requestLiveVoicemail({ runId, text });
  } catch (error) {
    log.error('live voicemail could not be requested', { runId, error: String(error) });
    return false;
  }
}
