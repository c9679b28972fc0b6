import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ensureSpeechTools } from '../../scripts/speech-tools';
import { mulawToPcm16, pcm16ToMulaw } from '../../voice/codecs';
import { RationalResampler } from '../../voice/rational-resample';
import { SpeechProviderError } from '../../voice/speech/errors';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { PocketsphinxStt } from '../../voice/speech/pocketsphinx-stt';
import type { Transcript } from '../../voice/speech/stt';
import { joinChunks } from '../../voice/speech/utterance-stream';
import { recognize, synthesize } from '../../voice/speech/whole';
import { amplitudeAt, decibels, rms, tone } from './audio-helpers';

/** espeak-ng and PocketSphinx are real Debian binaries; the jest global setup installs them. */
const speak = (text: string[], sampleRate: 8000 | 16000, voice?: string): Promise<Int16Array> =>
  synthesize(new EspeakTts(), text, { sampleRate, voice });

const transcribe = (samples: Int16Array, sampleRate: number): Promise<Transcript[]> =>
  recognize(new PocketsphinxStt(), samples, { sampleRate });

describe('rational resampler', () => {
  it.each([
    [22050, 8000],
    [22050, 16000],
    [8000, 16000],
  ])('%i -> %i Hz: a 1 kHz tone at unity gain', (inRate, outRate) => {
    const out = new RationalResampler(inRate, outRate).process(tone(1000, inRate, 1));
    expect(out).toHaveLength(outRate);
    expect(Math.abs(decibels(amplitudeAt(out.subarray(200), 1000, outRate) / 8000))).toBeLessThan(0.2);
  });

  it.each([
    [22050, 8000, 6000, 2000],
    [22050, 8000, 4500, 3500],
    [22050, 16000, 9000, 7000],
  ])('%i -> %i Hz: %i Hz is filtered before it aliases to %i Hz (below -40 dB)', (inRate, outRate, input, alias) => {
    const out = new RationalResampler(inRate, outRate).process(tone(input, inRate, 1));
    expect(decibels(amplitudeAt(out.subarray(200), alias, outRate) / 8000)).toBeLessThan(-40);
  });

  it('gives the same output fed odd chunks as fed the whole signal', () => {
    const signal = tone(440, 22050, 0.5);
    const whole = new RationalResampler(22050, 8000).process(signal);
    const framed = new RationalResampler(22050, 8000);
    const parts: number[] = [];
    for (let i = 0; i < signal.length; i += 137) parts.push(...framed.process(signal.subarray(i, i + 137)));
    expect(parts).toEqual(Array.from(whole));
  });
});

describe('speech tools', () => {
  it('names the Debian packages when it can neither find nor install them', async () => {
    const path = process.env.PATH;
    // No espeak-ng, no apt-get: both lookups fail without touching the machine.
    process.env.PATH = '/nonexistent';
    const lines: string[] = [];
    try {
      await expect(ensureSpeechTools((line) => lines.push(line))).rejects.toThrow(
        'Install the Debian packages espeak-ng pocketsphinx pocketsphinx-en-us',
      );
    } finally {
      process.env.PATH = path;
    }
    expect(lines).toEqual(expect.arrayContaining([expect.stringContaining('apt-get update')]));
  });

  it('finds the installed tools and the en-us model', async () => {
    const tools = await ensureSpeechTools(() => undefined);
    expect(tools.model.hmm).toBe('/usr/share/pocketsphinx/model/en-us/en-us');
  });
});

describe('espeak-ng text-to-speech', () => {
  it.each([8000, 16000] as const)('speaks "hello world" and a longer sentence as PCM at %i Hz', async (rate) => {
    const hello = await speak(['hello world'], rate);
    // About a second of speech (1.05 s measured on bookworm's 1.51 at 175 words per minute).
    expect(hello.length / rate).toBeGreaterThan(0.6);
    expect(hello.length / rate).toBeLessThan(1.8);
    expect(rms(hello)).toBeGreaterThan(500);

    const chunks: Int16Array[] = [];
    await new Promise<void>((resolve, reject) => {
      new EspeakTts()
        .open({ sampleRate: rate }, { onAudio: (pcm) => chunks.push(pcm), onDone: resolve, onError: reject })
        .then((stream) => {
          stream.speak('Hello world.');
          stream.speak('Your appointment is confirmed for Tuesday at three in the afternoon.');
          stream.end();
        }, reject);
    });
    const long = joinChunks(chunks);
    expect(long.length / rate).toBeGreaterThan(3.5);
    expect(long.length / rate).toBeLessThan(8);
    expect(rms(long)).toBeGreaterThan(500);
    // Streamed as espeak-ng writes, not in one piece.
    expect(chunks.length).toBeGreaterThan(2);
  });

  it('stops at once on cancel: no audio after it returns, no onDone', async () => {
    let after = 0;
    let cancelled = false;
    let done = false;
    await new Promise<void>((resolve, reject) => {
      void new EspeakTts()
        .open(
          { sampleRate: 8000 },
          {
            onAudio: () => {
              if (cancelled) after++;
              else {
                cancelled = true;
                stream.cancel();
                // Give a killed espeak-ng time to show it is really gone.
                setTimeout(resolve, 300);
              }
            },
            onDone: () => (done = true),
            onError: reject,
          },
        )
        .then((opened) => {
          stream = opened;
          stream.speak('This is a long sentence that would take several seconds to speak in full. '.repeat(200));
          stream.end();
        }, reject);
      let stream: { cancel(): void; speak(text: string): void; end(): void };
    });
    expect(after).toBe(0);
    expect(done).toBe(false);
    // The killed espeak-ng is gone, not left running in the background.
    const children = execFileSync('ps', ['-eo', 'ppid=,comm='], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([ppid, command]) => Number(ppid) === process.pid && command === 'espeak-ng');
    expect(children).toEqual([]);
  });

  it('refuses an unknown voice with a clear configuration error', async () => {
    const opened = new EspeakTts().open({ sampleRate: 8000, voice: 'nonexistent' }, { onAudio: () => undefined });
    await expect(opened).rejects.toThrow(SpeechProviderError);
    await expect(opened).rejects.toMatchObject({
      kind: 'configuration',
      message: expect.stringContaining('unknown voice "nonexistent"'),
    });
  });
});

describe('PocketSphinx speech-to-text', () => {
  it('transcribes espeak-ng at 16 kHz back to its words, with utterance times', async () => {
    // Deterministic for the same binaries and input. Measured on bookworm (espeak-ng 1.51,
    // pocketsphinx 0.8+5prealpha+1-15): the Klatt voice comes back word for word,
    // "hello world" in the default voice too.
    const klatt = await speak(['yes that is correct thank you'], 16000, 'en-us+klatt');
    const [heard] = await transcribe(klatt, 16000);
    expect(heard).toMatchObject({ isFinal: true, speechFinal: true, start: 0 });
    expect(heard?.end).toBeCloseTo(klatt.length / 16000, 3);
    expect(heard?.text).toBe('yes that is correct thank you');

    const hello = await transcribe(await speak(['hello world'], 16000), 16000);
    expect(hello.map((t) => t.text)).toEqual(['hello world']);
  });

  it('times each utterance from finalize() to finalize() and skips near-empty ones', async () => {
    const transcripts: Transcript[] = [];
    const stream = await new PocketsphinxStt().open(
      { sampleRate: 16000, language: 'en' },
      { onTranscript: (t) => transcripts.push(t) },
    );
    const hello = await speak(['hello world'], 16000);
    stream.push(hello);
    stream.finalize();
    stream.push(new Int16Array(800)); // 50 ms: below the 200 ms minimum
    stream.finalize();
    stream.push(hello);
    await stream.close();
    const seconds = hello.length / 16000;
    expect(transcripts.map((t) => t.text)).toEqual(['hello world', 'hello world']);
    expect(transcripts[0]).toMatchObject({ start: 0, end: seconds });
    expect(transcripts[1]?.start).toBeCloseTo(seconds + 0.05, 6);
    expect(transcripts[1]?.end).toBeCloseTo(2 * seconds + 0.05, 6);
  });

  it('after a µ-law 8 kHz round trip (a phone line) still hears the key words', async () => {
    // Measured (deterministic: fixed binaries, fixed-seed band fill, see band-fill.ts):
    // "i would like to book a table for two people" -> "i was like a book a table for two people",
    // "hello world" -> "hello world". Without the band fill: "what" and "hua".
    const phone = async (text: string) => {
      const spoken = await speak([text], 8000, 'en-us+klatt');
      const heard = await transcribe(mulawToPcm16(pcm16ToMulaw(spoken)), 8000);
      expect(heard).toHaveLength(1);
      expect(heard[0]).toMatchObject({ isFinal: true, start: 0, end: spoken.length / 8000 });
      return heard[0]?.text.split(' ') ?? [];
    };
    expect(await phone('i would like to book a table for two people')).toEqual(
      expect.arrayContaining(['book', 'table', 'two', 'people']),
    );
    expect(await phone('hello world')).toEqual(['hello', 'world']);
  });

  it('reports a broken model as a SpeechProviderError naming the cause, and leaves no temp files', async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('switchboard-stt-'));
    const errors: Error[] = [];
    const stream = await new PocketsphinxStt({ modelDir: '/nonexistent' }).open(
      { sampleRate: 8000, language: 'en' },
      { onTranscript: () => undefined, onError: (error) => errors.push(error) },
    );
    stream.push(tone(440, 8000, 0.5));
    await stream.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SpeechProviderError);
    expect(errors[0]?.message).toMatch(/exited with 1: ERROR: .*does not contain acoustic model definition 'mdef'/);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('switchboard-stt-'))).toEqual(before);
  });

  it('refuses a language it has no model for', async () => {
    await expect(
      new PocketsphinxStt().open({ sampleRate: 8000, language: 'de' }, { onTranscript: () => undefined }),
    ).rejects.toMatchObject({
      kind: 'configuration',
    });
  });
});
