import { joinChunks } from './utterance-stream';
import type { SpeechToText, Transcript } from './stt';
import type { TextToSpeech, TtsOptions } from './tts';

/** Speaks `sentences` and returns all of the audio at once (the simulated callee, tests). */
export async function synthesize(tts: TextToSpeech, sentences: string[], options: TtsOptions): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  await new Promise<void>((resolve, reject) => {
    tts.open(options, { onAudio: (pcm) => chunks.push(pcm), onDone: resolve, onError: reject }).then((stream) => {
      for (const sentence of sentences) stream.speak(sentence);
      stream.end();
    }, reject);
  });
  return joinChunks(chunks);
}

/** Recognizes one recorded utterance, pushed in 20 ms frames as a call would push it. */
export async function recognize(
  stt: SpeechToText,
  samples: Int16Array,
  options: { sampleRate: number; language?: string },
): Promise<Transcript[]> {
  const transcripts: Transcript[] = [];
  const errors: Error[] = [];
  const stream = await stt.open(
    { sampleRate: options.sampleRate, language: options.language ?? 'en-US' },
    { onTranscript: (transcript) => transcripts.push(transcript), onError: (error) => errors.push(error) },
  );
  const frame = options.sampleRate / 50;
  for (let i = 0; i < samples.length; i += frame) stream.push(samples.subarray(i, i + frame));
  await stream.close();
  if (errors[0]) throw errors[0];
  return transcripts;
}
