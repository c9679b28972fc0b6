import { HOLD_AUDIO_MP3_BASE64 } from './hold-audio-mp3';
import { wavHeader } from './wav';

/** The hold audio's rate: telephone audio, as every provider plays it without resampling. */
export const HOLD_AUDIO_SAMPLE_RATE = 8000;

/**
 * A calm rising and falling arpeggio (C major, then A minor), one note every 400 ms, with a rest at
 * the end so the loop a provider plays does not run notes together. Frequencies in Hz.
 */
const MELODY = [523.25, 659.25, 783.99, 659.25, 440.0, 523.25, 659.25, 523.25];
const NOTE_SECONDS = 0.4;
const REST_SECONDS = 0.8;
/** About a quarter of full scale: heard clearly, never harsh on a phone line. */
const PEAK = 8000;
const ATTACK_SECONDS = 0.02;

/**
 * The hold audio's samples (PCM16 mono at 8 kHz, about 4 s): each note a sine with a soft octave
 * overtone, a short attack and an exponential decay, so it sounds like a chime rather than a beep.
 */
export function holdAudioSamples(): Int16Array {
  const noteSamples = Math.round(NOTE_SECONDS * HOLD_AUDIO_SAMPLE_RATE);
  const samples = new Int16Array(MELODY.length * noteSamples + Math.round(REST_SECONDS * HOLD_AUDIO_SAMPLE_RATE));
  MELODY.forEach((frequency, index) => {
    for (let i = 0; i < noteSamples; i++) {
      const t = i / HOLD_AUDIO_SAMPLE_RATE;
      const envelope = Math.min(1, t / ATTACK_SECONDS) * Math.exp(-4 * t);
      const tone = Math.sin(2 * Math.PI * frequency * t) + 0.3 * Math.sin(4 * Math.PI * frequency * t);
      samples[index * noteSamples + i] = Math.round((PEAK * envelope * tone) / 1.3);
    }
  });
  return samples;
}

let wav: Buffer | undefined;

/** The hold audio as a WAV file (16-bit PCM, mono, 8 kHz), built once per process. */
export function holdAudioWav(): Buffer {
  if (!wav) {
    const samples = holdAudioSamples();
    const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    wav = Buffer.concat([wavHeader(HOLD_AUDIO_SAMPLE_RATE, 1, data.length), data]);
  }
  return wav;
}

let mp3: Buffer | undefined;

/** The same audio as MP3, for providers that play hold music from MP3 only (see hold-audio-mp3.ts). */
export function holdAudioMp3(): Buffer {
  mp3 ??= Buffer.from(HOLD_AUDIO_MP3_BASE64, 'base64');
  return mp3;
}
