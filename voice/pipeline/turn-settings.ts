import { z } from 'zod';

/**
 * The `workflow_configurations` keys that shape a live call's turns, with dograh's defaults
 * (dograh-facts §4.5). Values the API accepted but that are out of range here fall back to the default.
 */
const TurnConfigurations = z.object({
  max_call_duration: z.number().positive().catch(300).default(300),
  max_user_idle_timeout: z.number().positive().catch(10).default(10),
  smart_turn_stop_secs: z.number().positive().catch(2).default(2),
  turn_start_strategy: z.enum(['default', 'min_words', 'provisional_vad']).catch('default').default('default'),
  turn_start_min_words: z.number().int().min(1).catch(3).default(3),
  provisional_vad_pause_secs: z.number().positive().catch(1.5).default(1.5),
  turn_stop_strategy: z.enum(['transcription', 'turn_analyzer']).catch('transcription').default('transcription'),
});

export interface TurnSettings {
  maxCallSeconds: number;
  /** Silence after the agent finished before it checks the caller is still there; twice ends the call. */
  idleSeconds: number;
  /**
   * When the caller's speech counts as taking the turn while the agent speaks (and, on a node
   * with `allow_interrupt`, cuts the agent off): `default` at once; `min_words` once they said
   * `minWords` words (shorter speech over the agent is a backchannel and is dropped);
   * `provisional_vad` the agent's audio is held at once and resumes unless words are heard
   * within `provisionalPauseSeconds`.
   */
  startStrategy: 'default' | 'min_words' | 'provisional_vad';
  minWords: number;
  provisionalPauseSeconds: number;
  /**
   * When the caller's turn ends: `transcription` at the end of speech once its final transcript
   * is in; `turn_analyzer` the same, unless the words so far sound unfinished, in which case the
   * turn is held open for up to `smartTurnStopSeconds` of silence.
   */
  stopStrategy: 'transcription' | 'turn_analyzer';
  smartTurnStopSeconds: number;
}

export function turnSettingsOf(workflowConfigurations: Record<string, unknown>): TurnSettings {
  const parsed = TurnConfigurations.parse(workflowConfigurations);
  return {
    maxCallSeconds: parsed.max_call_duration,
    idleSeconds: parsed.max_user_idle_timeout,
    startStrategy: parsed.turn_start_strategy,
    minWords: parsed.turn_start_min_words,
    provisionalPauseSeconds: parsed.provisional_vad_pause_secs,
    stopStrategy: parsed.turn_stop_strategy,
    smartTurnStopSeconds: parsed.smart_turn_stop_secs,
  };
}

/** Words after which a speaker has usually not finished: a turn ending on one is held open (`turn_analyzer`). */
const UNFINISHED_ENDINGS = new Set(
  'and or but so because if then the a an to of for with my your our is are was um uh er like which that when'.split(
    ' ',
  ),
);

/** A transcript that stops mid-thought: on a conjunction, article, preposition or filler, or a trailing comma. */
export function soundsUnfinished(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '' || /[,;:-]$/.test(trimmed)) return trimmed !== '';
  const last = /([a-z']+)[^a-z']*$/i.exec(trimmed)?.[1]?.toLowerCase();
  return last !== undefined && UNFINISHED_ENDINGS.has(last) && !/[.!?]$/.test(trimmed);
}

export const wordCount = (text: string): number => text.split(/\s+/).filter((word) => /[a-z0-9]/i.test(word)).length;
