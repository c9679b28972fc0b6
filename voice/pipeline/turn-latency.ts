import type { TurnLatency } from '../../agent-runtime/contract';
import type { CallerTurn } from './caller-turns';

/** When a reply reached each stage (wall clock, ms). */
export interface ReplyMarks {
  requestSent?: number;
  firstToken?: number;
  firstSentence?: number;
  firstAudio?: number;
}

/**
 * The latency of one answered turn, in ms, from the caller's end of speech (less any hold for a
 * possible interruption) to the reply's first audio out (`sentAt`), split by stage; what no stage
 * explains is overhead.
 */
export function turnLatency(turnNumber: number, turn: CallerTurn, marks: ReplyMarks, sentAt: number): TurnLatency {
  const total = Math.max(0, sentAt - turn.endOfSpeechAt - turn.heldMs);
  // From the request for the final words: the detector's lag before it goes to overhead.
  const stt = Math.max(0, turn.transcribedAt - Math.max(turn.finalizedAt, turn.endOfSpeechAt));
  const llm = marks.requestSent && marks.firstToken ? marks.firstToken - marks.requestSent : 0;
  const tts = marks.firstSentence && marks.firstAudio ? marks.firstAudio - marks.firstSentence : 0;
  return {
    turn: turnNumber,
    endpointing: Math.round(turn.endpointingSeconds * 1000 + turn.heldMs),
    stt,
    llm,
    tts,
    overhead: Math.max(0, total - stt - llm - tts),
    total,
  };
}
