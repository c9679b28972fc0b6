import { RationalResampler } from '../rational-resample';

/** Noise RMS in the filled band; chosen by measurement (docs/guides/speech-providers.md: PocketSphinx). */
const FILL_RMS = 170;

/**
 * Adds faint, fixed-seed noise between 4.4 and 8 kHz to 16 kHz audio that came from a phone line
 * (nothing above 4 kHz). PocketSphinx's en-us model was trained on 16 kHz speech; on an empty top
 * band its log filterbank energies fall far outside what it knows and recognition collapses
 * (measured: "yes that is correct thank you" heard as "yeah where are you"). A flat noise floor
 * there makes those features near constant, which cepstral mean normalization then removes.
 * The seed is fixed so the same input always gives the same transcript.
 */
export function fillTopBand(samples: Int16Array): Int16Array {
  let seed = 12345;
  const uniform = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296 - 0.5;
  };
  // White noise low-passed below 3.6 kHz (through 8 kHz and back), then moved up by 8 kHz:
  // multiplying by (-1)^n mirrors the spectrum around 4 kHz, so it lands at 4.4-8 kHz.
  const lead = 200;
  const white = Int16Array.from({ length: samples.length + lead }, () => Math.round(uniform() * 3464));
  const low = new RationalResampler(8000, 16000).process(new RationalResampler(16000, 8000).process(white));
  let power = 0;
  for (let i = lead; i < low.length; i++) power += (low[i] ?? 0) ** 2;
  const gain = FILL_RMS / Math.sqrt(power / Math.max(1, low.length - lead) || 1);
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const noise = (i % 2 === 0 ? 1 : -1) * (low[i + lead] ?? 0) * gain;
    out[i] = Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) + noise)));
  }
  return out;
}
