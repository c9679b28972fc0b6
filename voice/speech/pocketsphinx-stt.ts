import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pcm16ToBytes } from '../codecs';
import { RationalResampler } from '../rational-resample';
import { wavHeader } from '../wav';
import { fillTopBand } from './band-fill';
import { SpeechProviderError } from './errors';
import type { SpeechToText, SttHandlers, SttOptions, SttStream } from './stt';
import { joinChunks, utteranceStream } from './utterance-stream';

/** Where Debian's `pocketsphinx-en-us` puts the US English model (bookworm 0.8+5prealpha+1-15). */
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export const pocketsphinxModel = (dir = POCKETSPHINX_MODEL_DIR) => ({
  hmm: join(dir, 'en-us'),
  lm: join(dir, 'en-us.lm.bin'),
  dict: join(dir, 'cmudict-en-us.dict'),
});

export interface PocketsphinxSettings {
  /** Default `pocketsphinx_continuous` from PATH (`npm run speech:tools` installs it). */
  command?: string;
  modelDir?: string;
}

const PROVIDER = 'pocketsphinx';
/** The en-us acoustic model is trained on 16 kHz audio. */
const MODEL_RATE = 16000;

/**
 * PocketSphinx (the Debian CLI) on buffered utterances, offline: as `openai-stt.ts`, audio is kept
 * until `finalize()` and then recognized in one go, here by writing a 16 kHz WAV to a temp file and
 * running `pocketsphinx_continuous -infile` with the en-us acoustic model, language model and
 * dictionary. It prints one hypothesis line per segment its own VAD finds; they are joined. English only.
 */
export class PocketsphinxStt implements SpeechToText {
  readonly provider = PROVIDER;

  constructor(private readonly settings: PocketsphinxSettings = {}) {}

  open(options: SttOptions, handlers: SttHandlers): Promise<SttStream> {
    if (!/^en\b/i.test(options.language)) {
      return Promise.reject(
        new SpeechProviderError(PROVIDER, 'configuration', `only English is installed, not "${options.language}"`),
      );
    }
    const transcribe = async (chunks: Int16Array[], samples: number, startSample: number): Promise<void> => {
      try {
        const text = await this.recognize(this.toModelRate(chunks, options.sampleRate));
        handlers.onTranscript({
          text,
          isFinal: true,
          speechFinal: true,
          start: startSample / options.sampleRate,
          end: (startSample + samples) / options.sampleRate,
        });
      } catch (error) {
        handlers.onError?.(
          error instanceof SpeechProviderError
            ? error
            : new SpeechProviderError(PROVIDER, 'protocol', String(error), { cause: error }),
        );
      }
    };

    return Promise.resolve(utteranceStream(options.sampleRate, transcribe));
  }

  private toModelRate(chunks: Int16Array[], rate: number): Int16Array {
    if (rate === MODEL_RATE) return joinChunks(chunks);
    const resampler = new RationalResampler(rate, MODEL_RATE);
    const upsampled = joinChunks([...chunks.map((chunk) => resampler.process(chunk)), resampler.flush()]);
    return rate < MODEL_RATE ? fillTopBand(upsampled) : upsampled;
  }

  /** Runs the recognizer on one utterance (16 kHz); the temp WAV and log are removed whatever happens. */
  private async recognize(samples: Int16Array): Promise<string> {
    const pcm = pcm16ToBytes(samples);
    const base = join(tmpdir(), `switchboard-stt-${randomUUID()}`);
    const [file, log] = [`${base}.wav`, `${base}.log`];
    await writeFile(file, Buffer.concat([wavHeader(MODEL_RATE, 1, pcm.length), pcm]));
    try {
      const model = pocketsphinxModel(this.settings.modelDir);
      const args = ['-infile', file, '-hmm', model.hmm, '-lm', model.lm, '-dict', model.dict, '-samprate', '16000'];
      // Its log is hundreds of lines per run: kept in a file, read only to explain a failure.
      const { code, stdout } = await run(this.settings.command ?? 'pocketsphinx_continuous', [...args, '-logfn', log]);
      if (code !== 0) {
        const text = await readFile(log, 'utf8').catch(() => '');
        const reasons = text.split('\n').filter((line) => /^(ERROR|FATAL)/.test(line));
        throw new SpeechProviderError(
          PROVIDER,
          'protocol',
          `pocketsphinx_continuous exited with ${code}: ${reasons.join('; ')}`,
        );
      }
      return stdout
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .join(' ');
    } finally {
      await Promise.all([rm(file, { force: true }), rm(log, { force: true })]);
    }
  }
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (bytes: Buffer) => (stdout += bytes.toString()));
    child.on('error', (error) =>
      reject(
        new SpeechProviderError(
          PROVIDER,
          'configuration',
          `cannot run ${command} (${error.message}); \`npm run speech:tools\` installs it`,
          { cause: error },
        ),
      ),
    );
    child.on('close', (code) => resolve({ code, stdout }));
  });
}
