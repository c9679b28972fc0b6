import type { SttStream } from './stt';

/** Shorter than this (seconds) is noise, not an utterance: not worth recognizing. */
const MIN_UTTERANCE_SECONDS = 0.2;

/**
 * An STT stream for engines that recognize whole utterances (OpenAI transcriptions, PocketSphinx):
 * audio is kept until `finalize()` (our VAD decided the turn ended), then handed to `recognize`
 * with its offset in the stream. Utterances are recognized one after another, so transcripts
 * arrive in speaking order; `close()` finalizes and waits for the last one.
 */
export function utteranceStream(
  sampleRate: number,
  recognize: (chunks: Int16Array[], samples: number, startSample: number) => Promise<void>,
): SttStream {
  let pending: Int16Array[] = [];
  let pendingSamples = 0;
  let consumed = 0;
  let closed = false;
  let work: Promise<void> = Promise.resolve();

  const finalize = (): void => {
    if (pendingSamples >= MIN_UTTERANCE_SECONDS * sampleRate) {
      const [chunks, samples, start] = [pending, pendingSamples, consumed];
      work = work.then(() => recognize(chunks, samples, start));
    }
    consumed += pendingSamples;
    pending = [];
    pendingSamples = 0;
  };

  return {
    push(samples) {
      if (closed) return;
      pending.push(samples.slice());
      pendingSamples += samples.length;
    },
    finalize,
    async close() {
      if (!closed) {
        closed = true;
        finalize();
      }
      await work;
    },
  };
}

/** The chunks of an utterance as one buffer. */
export function joinChunks(chunks: Int16Array[]): Int16Array {
  const all = new Int16Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}
