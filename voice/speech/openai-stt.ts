import type OpenAI from 'openai';
import { toFile } from 'openai';
import { pcm16ToBytes } from '../codecs';
import { wavHeader } from '../wav';
import { openAiClient, toSpeechError, type OpenAiSpeechSettings } from './openai-tts';
import type { SpeechToText, SttHandlers, SttOptions, SttStream } from './stt';

/** Shorter than this (seconds) is noise, not an utterance; not worth a request. */
const MIN_UTTERANCE_SECONDS = 0.2;

export interface OpenAiSttSettings extends OpenAiSpeechSettings {
  sttModel?: string;
}

/**
 * OpenAI `audio.transcriptions.create` on buffered utterances: audio is kept until `finalize()`
 * (our VAD decided the turn ended) and sent as one WAV. Chosen over the realtime transcription
 * WebSocket because our pipeline already detects turns, and the plain endpoint is also served by
 * OpenAI-compatible servers (whisper.cpp, vLLM) that LLM_BASE_URL may point at. No interim results.
 */
export class OpenAiStt implements SpeechToText {
  readonly provider = 'openai';
  private readonly client: OpenAI;

  constructor(private readonly settings: OpenAiSttSettings) {
    this.client = openAiClient(settings);
  }

  open(options: SttOptions, handlers: SttHandlers): Promise<SttStream> {
    const model = this.settings.sttModel ?? 'gpt-4o-mini-transcribe';
    const language = options.language.split('-')[0];
    let pending: Int16Array[] = [];
    let pendingSamples = 0;
    let consumed = 0;
    let closed = false;
    let work: Promise<void> = Promise.resolve();

    const transcribe = async (chunks: Int16Array[], samples: number, startSample: number): Promise<void> => {
      const all = new Int16Array(samples);
      chunks.reduce((at, chunk) => (all.set(chunk, at), at + chunk.length), 0);
      const pcm = pcm16ToBytes(all);
      const wav = Buffer.concat([wavHeader(options.sampleRate, 1, pcm.length), pcm]);
      try {
        const result = await this.client.audio.transcriptions.create({
          model,
          file: await toFile(wav, 'utterance.wav', { type: 'audio/wav' }),
          language,
          ...(options.keyterms?.length ? { prompt: options.keyterms.join(', ') } : {}),
        });
        handlers.onTranscript({
          text: result.text,
          isFinal: true,
          speechFinal: true,
          start: startSample / options.sampleRate,
          end: (startSample + samples) / options.sampleRate,
        });
      } catch (error) {
        handlers.onError?.(toSpeechError(error));
      }
    };

    const finalize = () => {
      if (pendingSamples >= MIN_UTTERANCE_SECONDS * options.sampleRate) {
        const [chunks, samples, start] = [pending, pendingSamples, consumed];
        // Requests run one after another so transcripts arrive in speaking order.
        work = work.then(() => transcribe(chunks, samples, start));
      }
      consumed += pendingSamples;
      pending = [];
      pendingSamples = 0;
    };

    return Promise.resolve({
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
    });
  }
}
