import request from 'supertest';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../voice/wav';
import { useTestServices } from '../helpers/services';
import { rms } from '../voice/audio-helpers';

const services = useTestServices();

/** GETs a public path, its body as bytes. */
const getBinary = (path: string) =>
  request(services.server())
    .get(path)
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });

/**
 * Walks an MP3's frames by their headers (MPEG 2.5 layer III at 8 kHz: 576 samples a frame, 72 ×
 * bitrate / rate bytes plus padding); fails on anything that is not a frame.
 */
function mp3Frames(mp3: Buffer): { frames: number; sampleRate: number; bitrate: number } {
  let at = 0;
  let frames = 0;
  const bitrates = new Set<number>();
  while (at < mp3.length) {
    const header = mp3.readUInt32BE(at);
    expect(header >>> 21).toBe(0x7ff); // frame sync
    expect((header >>> 19) & 0b11).toBe(0b00); // MPEG 2.5
    expect((header >>> 17) & 0b11).toBe(0b01); // layer III
    expect((header >>> 10) & 0b11).toBe(0b10); // 8,000 Hz in MPEG 2.5
    expect((header >>> 6) & 0b11).toBe(0b11); // mono
    const bitrate = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160][(header >>> 12) & 0b1111] ?? 0;
    bitrates.add(bitrate);
    at += Math.floor((72 * bitrate * 1000) / 8000) + ((header >>> 9) & 1);
    frames += 1;
  }
  expect(at).toBe(mp3.length);
  expect(bitrates.size).toBe(1);
  return { frames, sampleRate: 8000, bitrate: [...bitrates][0] ?? 0 };
}

describe('GET /api/v1/telephony/hold-audio.wav', () => {
  it('serves a few seconds of audible 8 kHz mono PCM to anyone, as providers fetch it', async () => {
    const res = await getBinary('/api/v1/telephony/hold-audio.wav');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const wav = res.body as Buffer;
    const format = parseWavHeader(wav);
    expect(format).toEqual({
      sampleRate: 8000,
      channels: 1,
      bitsPerSample: 16,
      dataBytes: wav.length - WAV_HEADER_BYTES,
    });
    const seconds = (format?.dataBytes ?? 0) / 2 / 8000;
    expect(seconds).toBeGreaterThanOrEqual(2);
    expect(seconds).toBeLessThanOrEqual(10);
    const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + WAV_HEADER_BYTES, wav.byteOffset + wav.length));
    // Audible, and never clipping.
    expect(rms(samples)).toBeGreaterThan(500);
    expect(Math.max(...samples.map((sample) => Math.abs(sample)))).toBeLessThan(32_000);
  });
});

describe('GET /api/v1/telephony/hold-audio.mp3', () => {
  it('serves the same length of audio as MP3 frames, for providers that play MP3 only', async () => {
    const res = await getBinary('/api/v1/telephony/hold-audio.mp3');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const { frames, bitrate } = mp3Frames(res.body as Buffer);
    expect(bitrate).toBe(16);
    const wav = await getBinary('/api/v1/telephony/hold-audio.wav');
    const wavSeconds = ((wav.body as Buffer).length - WAV_HEADER_BYTES) / 2 / 8000;
    // The encoder pads the last frame and adds its own delay: at most a few frames more.
    const mp3Seconds = (frames * 576) / 8000;
    expect(mp3Seconds).toBeGreaterThanOrEqual(wavSeconds);
    expect(mp3Seconds).toBeLessThan(wavSeconds + 0.5);
  });
});
