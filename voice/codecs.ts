import { alaw, mulaw } from 'alawmulaw';

/** G.711 µ-law (8-bit, 8 kHz) to linear PCM16: what Twilio, Plivo and Telnyx stream. */
export const mulawToPcm16 = (bytes: Uint8Array): Int16Array => mulaw.decode(bytes);
export const pcm16ToMulaw = (samples: Int16Array): Uint8Array => mulaw.encode(samples);

/** G.711 A-law, the European variant some SIP trunks (and Telnyx PCMA) carry. */
export const alawToPcm16 = (bytes: Uint8Array): Int16Array => alaw.decode(bytes);
export const pcm16ToAlaw = (samples: Int16Array): Uint8Array => alaw.encode(samples);

/** PCM16 little-endian bytes (Vonage, ARI slin) to samples; copies, so odd buffer offsets are fine. */
export function pcm16FromBytes(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(Math.floor(bytes.length / 2));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

export function pcm16ToBytes(samples: Int16Array): Buffer {
  const bytes = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i] ?? 0, i * 2);
  return bytes;
}
