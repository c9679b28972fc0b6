export interface TtsOptions {
  /** Of the PCM16 mono wanted back; calls are 8000. */
  sampleRate: 8000 | 16000;
  /** Provider voice id; unset: the adapter's default. */
  voice?: string;
  language?: string;
}

export interface TtsHandlers {
  /** PCM16 mono at the requested rate, as soon as it arrives. */
  onAudio(samples: Int16Array): void;
  /** Every sentence given before `end()` has been synthesized. Not called after `cancel()`. */
  onDone?(): void;
  /** The stream failed; it is closed. */
  onError?(error: Error): void;
}

/** One agent reply being spoken: sentences go in as the LLM writes them, audio comes out. */
export interface TtsStream {
  /** Queues one sentence (or any text chunk); audio follows in order. */
  speak(text: string): void;
  /** No more text for this reply: synthesize what is buffered, then `onDone`. */
  end(): void;
  /** Barge-in: stops at once; no `onAudio` is called after this returns. */
  cancel(): void;
}

/** A streaming text-to-speech provider. `open` rejects with SpeechProviderError (e.g. kind `auth`). */
export interface TextToSpeech {
  readonly provider: string;
  open(options: TtsOptions, handlers: TtsHandlers): Promise<TtsStream>;
}
