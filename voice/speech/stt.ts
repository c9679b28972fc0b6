/** One recognition result; `start`/`end` are seconds from the stream's first sample, when the provider gives them. */
export interface Transcript {
  text: string;
  /** The provider will not revise this text again. */
  isFinal: boolean;
  /** The provider judged that the speaker finished the utterance (Deepgram `speech_final`). */
  speechFinal: boolean;
  start: number | null;
  end: number | null;
}

export interface SttOptions {
  /** Of the PCM16 mono pushed in; calls are 8000. */
  sampleRate: number;
  /** BCP-47, e.g. `en` or `en-US`. */
  language: string;
  /** Words to favour (`workflow_configurations.dictionary`). */
  keyterms?: string[];
}

export interface SttHandlers {
  onTranscript(transcript: Transcript): void;
  /** Voice began (Deepgram `SpeechStarted`); `at` in seconds when known. */
  onSpeechStarted?(at: number | null): void;
  /** Silence after speech (Deepgram `UtteranceEnd`); `at` is the end of the last word. */
  onUtteranceEnd?(at: number | null): void;
  /** The stream failed after it opened; it is closed. */
  onError?(error: Error): void;
}

/** A call's open recognition stream. */
export interface SttStream {
  push(samples: Int16Array): void;
  /** Asks for final results of what was pushed so far (end of a turn, decided by our VAD). */
  finalize(): void;
  /** Flushes, waits for the last results (bounded), then closes. Idempotent. */
  close(): Promise<void>;
}

/** A streaming speech-to-text provider. `open` rejects with SpeechProviderError (e.g. kind `auth`). */
export interface SpeechToText {
  readonly provider: string;
  open(options: SttOptions, handlers: SttHandlers): Promise<SttStream>;
}
