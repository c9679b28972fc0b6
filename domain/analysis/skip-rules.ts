import { inSample } from './sampling';
import type { CallForAnalysis, QaSettings, QaSkipped } from './types';

/**
 * Why a QA node leaves a call alone, in the order they are checked; null: the node analyses it.
 * A machine's call (unless the node takes them), a call with nothing said, one shorter than the
 * node's minimum, or one outside its sample.
 */
export function skipReason(call: CallForAnalysis, settings: QaSettings): QaSkipped['reason'] | null {
  if (call.voicemail && !settings.voicemailCalls) return 'voicemail_call';
  if (call.transcript.length === 0) return 'no_conversation';
  if (call.durationSeconds < settings.minCallDurationSeconds) return 'call_too_short';
  if (!inSample(call.runId, settings.sampleRate)) return 'not_sampled';
  return null;
}
