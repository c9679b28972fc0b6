import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TwoTrackRecorder } from '../../voice/two-track-recorder';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../voice/wav';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recorder-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const filled = (length: number, value: number) => new Int16Array(length).fill(value);

/** The recording's left (caller) and right (agent) channels. */
async function channels(path: string) {
  const bytes = await readFile(path);
  const header = parseWavHeader(bytes);
  const frames = (bytes.length - WAV_HEADER_BYTES) / 4;
  const left: number[] = [];
  const right: number[] = [];
  for (let i = 0; i < frames; i++) {
    left.push(bytes.readInt16LE(WAV_HEADER_BYTES + i * 4));
    right.push(bytes.readInt16LE(WAV_HEADER_BYTES + i * 4 + 2));
  }
  return { bytes, header, left, right };
}

describe('two-track recorder', () => {
  it('writes a stereo 16-bit 8 kHz WAV whose header sizes are fixed up on close', async () => {
    const path = join(dir, 'nested', 'header.wav');
    const recorder = await TwoTrackRecorder.create(path);
    for (let i = 0; i < 50; i++) recorder.caller(filled(160, 100));
    await recorder.close();
    const { bytes, header } = await channels(path);
    expect(header).toEqual({ channels: 2, sampleRate: 8000, bitsPerSample: 16, dataBytes: 8000 * 4 });
    expect(bytes.length).toBe(44 + 8000 * 4);
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(bytes.readUInt32LE(28)).toBe(8000 * 4); // byte rate
    expect(bytes.readUInt16LE(32)).toBe(4); // block align
    expect(recorder.durationSeconds).toBe(1);
  });

  it('keeps the tracks aligned: agent audio starts where the caller stream is, silence pads the other track', async () => {
    const path = join(dir, 'aligned.wav');
    const recorder = await TwoTrackRecorder.create(path);
    recorder.caller(filled(800, 1)); // 100 ms of caller before the agent speaks
    recorder.agent(filled(400, 7)); // 50 ms of agent audio, sent at 100 ms
    recorder.agent(filled(400, 8)); // queued behind it
    recorder.caller(filled(1600, 2)); // 200 ms more caller; the agent's 100 ms plays during it
    recorder.agent(filled(300, 9)); // agent audio queued past the caller's end
    await recorder.close();
    const { left, right } = await channels(path);
    expect(left).toHaveLength(2700);
    expect(right).toHaveLength(2700);
    expect(left.slice(0, 800).every((s) => s === 1)).toBe(true);
    expect(left.slice(800, 2400).every((s) => s === 2)).toBe(true);
    // Caller silence pads the agent audio written on close.
    expect(left.slice(2400).every((s) => s === 0)).toBe(true);
    expect(right.slice(0, 800).every((s) => s === 0)).toBe(true);
    expect(right.slice(800, 1200).every((s) => s === 7)).toBe(true);
    expect(right.slice(1200, 1600).every((s) => s === 8)).toBe(true);
    expect(right.slice(1600, 2400).every((s) => s === 0)).toBe(true);
    expect(right.slice(2400).every((s) => s === 9)).toBe(true);
  });

  it('keeps every sample in place across the one-second chunks it writes', async () => {
    const path = join(dir, 'chunks.wav');
    const recorder = await TwoTrackRecorder.create(path);
    // 2.5 s of 20 ms caller frames counting up; agent audio of odd lengths that straddles chunk edges.
    const ramp = (from: number, length: number) => Int16Array.from({ length }, (_, i) => (from + i) % 30000);
    for (let frame = 0; frame < 125; frame++) {
      if (frame === 45) recorder.agent(ramp(5000, 1234));
      if (frame === 98) recorder.agent(ramp(9000, 3333));
      recorder.caller(ramp(frame * 160, 160));
    }
    recorder.agent(ramp(20000, 777)); // after the caller's last frame: written against silence on close
    await recorder.close();
    const { left, right, header } = await channels(path);
    expect(header?.dataBytes).toBe((20000 + 777) * 4);
    expect(left).toEqual([...ramp(0, 20000), ...new Array<number>(777).fill(0)]);
    const agent = new Array<number>(20777).fill(0);
    [...ramp(5000, 1234)].forEach((sample, i) => (agent[45 * 160 + i] = sample));
    [...ramp(9000, 3333)].forEach((sample, i) => (agent[98 * 160 + i] = sample));
    [...ramp(20000, 777)].forEach((sample, i) => (agent[20000 + i] = sample));
    expect(right).toEqual(agent);
  });

  it('drops queued agent audio on barge-in (clear): it never played', async () => {
    const path = join(dir, 'cleared.wav');
    const recorder = await TwoTrackRecorder.create(path);
    recorder.agent(filled(800, 5));
    recorder.caller(filled(400, 1));
    recorder.clearAgent();
    recorder.caller(filled(400, 1));
    await recorder.close();
    const { right } = await channels(path);
    expect(right).toEqual([...Array<number>(400).fill(5), ...Array<number>(400).fill(0)]);
  });

  it('writes an empty but valid WAV when no audio arrived, and ignores audio after close', async () => {
    const path = join(dir, 'empty.wav');
    const recorder = await TwoTrackRecorder.create(path);
    await recorder.close();
    recorder.caller(filled(160, 1));
    await recorder.close();
    const { bytes, header } = await channels(path);
    expect(header?.dataBytes).toBe(0);
    expect(bytes.length).toBe(44);
  });
});
