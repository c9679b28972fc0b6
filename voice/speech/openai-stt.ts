import type OpenAI from 'openai';
import { toFile } from 'openai';
import { pcm16ToBytes } from '../codecs';
import { wavHeader } from '../wav';
import { openAiClient, toSpeechError, type OpenAiSpeechSettings } from './openai-tts';
import type { SpeechToText, SttHandlers, SttOptions, SttStream } from './stt';
import { joinChunks, utteranceStream } from './utterance-stream';

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
    const transcribe = async (chunks: Int16Array[], samples: number, startSample: number): Promise<void> => {
      const pcm = pcm16ToBytes(joinChunks(chunks));
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

    return Promise.resolve(utteranceStream(options.sampleRate, transcribe));
  }
}
