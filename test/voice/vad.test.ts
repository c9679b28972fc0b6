import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import { synthesize } from '../../voice/speech/whole';
import { vadThread, VAD_SAMPLE_RATE, VoiceActivityDetector, type VadEvent } from '../../voice/vad';
import { tone } from './audio-helpers';

const silence = (seconds: number) => new Int16Array(Math.round(VAD_SAMPLE_RATE * seconds));

/** Feeds audio in 20 ms frames, as a call does, and returns the events once every window is judged. */
async function detect(parts: Int16Array[], settings = {}): Promise<VadEvent[]> {
  const events: VadEvent[] = [];
  const errors: Error[] = [];
  const vad = await VoiceActivityDetector.create(
    { onEvent: (event) => events.push(event), onError: (error) => errors.push(error) },
    settings,
  );
  for (const part of parts) for (let i = 0; i < part.length; i += 160) vad.push(part.subarray(i, i + 160));
  await vad.idle();
  expect(errors).toEqual([]);
  return events;
}

describe('Silero voice activity detection', () => {
  let speech: Int16Array;
  beforeAll(async () => {
    speech = await synthesize(new EspeakTts(), ['Hello, I would like to book a table for two.'], { sampleRate: 8000 });
  });

  it('finds the start and end of speech between silences', async () => {
    const seconds = speech.length / VAD_SAMPLE_RATE;
    const events = await detect([silence(1), speech, silence(1.5)]);
    expect(events.map((event) => event.type)).toEqual(['start', 'stop']);
    const [start, stop] = events as [VadEvent, VadEvent];
    // espeak-ng leaves a few tens of milliseconds of silence around its speech.
    expect(start.at).toBeGreaterThan(0.9);
    expect(start.at).toBeLessThan(1.25);
    expect(stop.at).toBeGreaterThan(1 + seconds - 0.4);
    expect(stop.at).toBeLessThan(1 + seconds + 0.15);
  });

  it('hears nothing in silence or in a steady tone', async () => {
    expect(await detect([silence(3)])).toEqual([]);
    expect(await detect([tone(1000, VAD_SAMPLE_RATE, 2, 3000)])).toEqual([]);
  });

  it('keeps one utterance across a pause shorter than stopSeconds, and splits at a longer one', async () => {
    const joined = await detect([silence(0.5), speech, silence(0.3), speech, silence(1.2)], { stopSeconds: 0.8 });
    expect(joined.map((event) => event.type)).toEqual(['start', 'stop']);
    const split = await detect([silence(0.5), speech, silence(1.2), speech, silence(1.2)], { stopSeconds: 0.5 });
    expect(split.map((event) => event.type)).toEqual(['start', 'stop', 'start', 'stop']);
  });

  it('judges calls side by side in shared inferences, each exactly as it would be judged alone', async () => {
    const calls = [0.2, 0.5, 0.9, 1.3, 1.7].map((lead) => [silence(lead), speech, silence(1.2)]);
    const alone: VadEvent[][] = [];
    for (const audio of calls) alone.push(await detect(audio));
    const before = vadThread.batches;
    const together = await Promise.all(calls.map((audio) => detect(audio)));
    expect(together).toEqual(alone);
    const windows = calls.reduce((total, audio) => total + audio.reduce((sum, part) => sum + part.length, 0) / 256, 0);
    // One inference per round of windows, not one per window.
    expect(vadThread.batches - before).toBeLessThan(windows / 3);
    // Judged on a thread of its own, not the event loop's (bench:voice measures what that buys).
    expect(vadThread.threadId).toBeGreaterThan(0);
  });

  it('judges a backlog longer than the shared ring in order (the windows wait their turn)', async () => {
    // 70 utterances: about 9,200 windows pushed at once, more than the ring's 8,192.
    const parts = Array.from({ length: 70 }, () => [speech, silence(1.2)]).flat();
    const events = await detect([silence(0.5), ...parts]);
    expect(events.map((event) => event.type)).toEqual(Array.from({ length: 70 }, () => ['start', 'stop']).flat());
  });

  it('never keeps a process alive once its windows are judged', async () => {
    // A script that judges a second of audio and then has nothing left to do must end by itself.
    const script = [
      "import { VoiceActivityDetector } from './voice/vad';",
      'void (async () => {',
      '  const vad = await VoiceActivityDetector.create({ onEvent: () => {} });',
      '  vad.push(new Int16Array(8000));',
      '  await vad.idle();',
      "  console.log('judged');",
      '})();',
    ].join('\n');
    const root = join(__dirname, '..', '..');
    const { stdout } = await promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['-e', script], {
      cwd: root,
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe('judged');
  });
});
