import request from 'supertest';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../voice/wav';
import { useTestServices } from '../helpers/services';
import { rms } from '../voice/audio-helpers';

const services = useTestServices();

describe('GET /api/v1/telephony/hold-audio.wav', () => {
  it('serves a few seconds of audible 8 kHz mono PCM to anyone, as providers fetch it', async () => {
    const res = await request(services.server())
      .get('/api/v1/telephony/hold-audio.wav')
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
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
