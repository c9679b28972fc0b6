import { alawToPcm16, mulawToPcm16, pcm16FromBytes, pcm16ToAlaw, pcm16ToBytes, pcm16ToMulaw } from '../../voice/codecs';
import { Downsampler16kTo8k, Upsampler8kTo16k } from '../../voice/resample';
import { amplitudeAt, decibels, snr, tone } from './audio-helpers';

describe('G.711 codecs', () => {
  it('decodes the reference code points (µ-law 0xFF and A-law 0xD5 are near-silence)', () => {
    expect(Array.from(mulawToPcm16(Uint8Array.of(0xff, 0x7f, 0x00, 0x80)))).toEqual([0, 0, -32124, 32124]);
    expect(Array.from(alawToPcm16(Uint8Array.of(0xd5, 0x55)))).toEqual([8, -8]);
    expect(Array.from(pcm16ToMulaw(new Int16Array(3)))).toEqual([0xff, 0xff, 0xff]);
  });

  it.each([
    ['µ-law', pcm16ToMulaw, mulawToPcm16],
    ['A-law', pcm16ToAlaw, alawToPcm16],
  ])('%s round-trips a tone at telephone quality (8 bits per sample, SNR above 30 dB)', (_name, encode, decode) => {
    const original = tone(440, 8000, 1);
    const encoded = encode(original);
    expect(encoded).toHaveLength(8000);
    expect(snr(original, decode(encoded))).toBeGreaterThan(30);
    // Decoding is exact: encoding a decoded signal gives the same bytes.
    expect(Buffer.from(encode(decode(encoded)))).toEqual(Buffer.from(encoded));
  });

  it('reads and writes PCM16 little-endian bytes, also at odd buffer offsets', () => {
    const samples = Int16Array.of(0, 1, -1, 32767, -32768);
    const bytes = pcm16ToBytes(samples);
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    const shifted = Buffer.concat([Buffer.from([9]), bytes]).subarray(1);
    expect(Array.from(pcm16FromBytes(shifted))).toEqual(Array.from(samples));
  });
});

describe('8 kHz <-> 16 kHz resampling', () => {
  it('upsamples a 1 kHz tone at unity gain, its 7 kHz image suppressed by more than 40 dB', () => {
    const up = new Upsampler8kTo16k().process(tone(1000, 8000, 1));
    expect(up).toHaveLength(16000);
    const steady = up.subarray(100);
    expect(Math.abs(decibels(amplitudeAt(steady, 1000, 16000) / 8000))).toBeLessThan(0.5);
    expect(decibels(amplitudeAt(steady, 7000, 16000) / 8000)).toBeLessThan(-40);
  });

  it('downsamples a 1 kHz tone at unity gain and filters a 6 kHz tone before it aliases (below -35 dB)', () => {
    const pass = new Downsampler16kTo8k().process(tone(1000, 16000, 1)).subarray(100);
    expect(Math.abs(decibels(amplitudeAt(pass, 1000, 8000) / 8000))).toBeLessThan(0.5);
    // 6 kHz at 8 kHz would fold to 2 kHz.
    const stop = new Downsampler16kTo8k().process(tone(6000, 16000, 1)).subarray(100);
    expect(decibels(amplitudeAt(stop, 2000, 8000) / 8000)).toBeLessThan(-35);
  });

  it('gives the same output fed 20 ms frames as fed the whole signal (filter state carries over)', () => {
    const signal = tone(700, 8000, 0.5);
    const whole = new Upsampler8kTo16k().process(signal);
    const framed = new Upsampler8kTo16k();
    const parts: number[] = [];
    for (let i = 0; i < signal.length; i += 160) parts.push(...framed.process(signal.subarray(i, i + 160)));
    expect(parts).toEqual(Array.from(whole));

    const down = new Downsampler16kTo8k();
    const downParts: number[] = [];
    for (let i = 0; i < whole.length; i += 320) downParts.push(...down.process(whole.subarray(i, i + 320)));
    expect(downParts).toEqual(Array.from(new Downsampler16kTo8k().process(whole)));
  });

  it('round-trips 8 -> 16 -> 8 kHz with the tone intact (15-sample delay at 16 kHz)', () => {
    const original = tone(500, 8000, 1);
    const back = new Downsampler16kTo8k().process(new Upsampler8kTo16k().process(original));
    // Two passes of a 31-tap filter: 30 samples at 16 kHz, 15 at 8 kHz.
    expect(snr(original.subarray(100, 7900), back.subarray(115, 7915))).toBeGreaterThan(30);
  });
});
