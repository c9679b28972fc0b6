import type WebSocket from 'ws';
import type { Logger } from '../../platform/logger';
import { pcm16FromBytes, pcm16ToBytes } from '../../voice/codecs';
import type { MediaSession, MediaTransport } from '../../voice/media-session';
import { Downsampler16kTo8k, Upsampler8kTo16k } from '../../voice/resample';
import { endOnClose, jsonOf, rawBytes, sendIfOpen, type ProviderStreamFactory } from './stream-support';
import {
  l16Rate,
  VonageConnected,
  VonageEvent,
  vonageClear,
  vonageNotify,
} from '../../telephony/providers/vonage/media-frames';

/**
 * The outbound half of a Vonage WebSocket: the session's 8 kHz PCM16, upsampled when the call
 * streams 16 kHz (what the NCCO of telephony/providers/vonage asks for), cut into the exact
 * 20 ms binary frames Vonage requires (§5.5: 640 bytes at 16 kHz, 320 at 8 kHz). A partial
 * frame waits for more audio; a mark pads it with silence so the notify follows all of it.
 */
export class VonageTransport implements MediaTransport {
  rate: 8000 | 16000 = 16000;
  private upsampler = new Upsampler8kTo16k();
  private pending = Buffer.alloc(0);

  constructor(private readonly socket: WebSocket) {}

  private get frameBytes(): number {
    return (this.rate / 50) * 2;
  }

  sendAudio(samples: Int16Array): void {
    const wire = this.rate === 16000 ? this.upsampler.process(samples) : samples;
    this.pending = Buffer.concat([this.pending, pcm16ToBytes(wire)]);
    let offset = 0;
    for (; offset + this.frameBytes <= this.pending.length; offset += this.frameBytes) {
      sendIfOpen(this.socket, this.pending.subarray(offset, offset + this.frameBytes));
    }
    this.pending = Buffer.from(this.pending.subarray(offset));
  }

  sendMark(name: string): void {
    if (this.pending.length > 0) {
      sendIfOpen(this.socket, Buffer.concat([this.pending, Buffer.alloc(this.frameBytes - this.pending.length)]));
      this.pending = Buffer.alloc(0);
    }
    sendIfOpen(this.socket, vonageNotify(name));
  }

  clear(): void {
    this.pending = Buffer.alloc(0);
    this.upsampler = new Upsampler8kTo16k();
    sendIfOpen(this.socket, vonageClear());
  }
}

/** Vonage sends no stop frame: the call ending closes the socket, which ends the session. */
export function runVonageStream(
  socket: WebSocket,
  transport: VonageTransport,
  session: MediaSession,
  log: Logger,
): void {
  endOnClose(socket, session, log, 'vonage');
  let downsampler: Downsampler16kTo8k | null = null;
  let started = false;
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      // Audio before the first text frame has no known rate: not Vonage.
      if (!started) {
        socket.close(1003, 'Expected the websocket:connected text frame first');
        return;
      }
      const samples = pcm16FromBytes(rawBytes(data));
      session.callerAudio(downsampler ? downsampler.process(samples) : samples);
      return;
    }
    const json = jsonOf(data, false);
    if (!started) {
      const first = VonageConnected.safeParse(json);
      const rate = first.success ? l16Rate(first.data['content-type']) : null;
      if (!first.success || (rate !== 8000 && rate !== 16000)) {
        socket.close(1003, 'Unsupported first frame or media format');
        return;
      }
      started = true;
      transport.rate = rate;
      if (rate === 16000) downsampler = new Downsampler16kTo8k();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(first.data)) {
        if (name !== 'event' && name !== 'content-type' && typeof value === 'string') headers[name] = value;
      }
      session.streamStarted({
        // Vonage's first frame carries no stream or call id; the NCCO headers are all it has.
        streamId: headers.uuid ?? `run-${session.runId}`,
        providerCallId: headers.uuid ?? null,
        mediaFormat: { encoding: 'audio/l16', sampleRate: rate, channels: 1 },
        customParameters: headers,
      });
      return;
    }
    const parsed = VonageEvent.safeParse(json);
    if (!parsed.success) return;
    const event = parsed.data;
    if (event.event === 'websocket:notify') {
      const name = event.payload?.name;
      if (typeof name === 'string') session.markPlayed(name);
    } else if (event.event === 'websocket:dtmf') {
      session.dtmf(event.digit);
    }
  });
}

export const vonageStream: ProviderStreamFactory = (socket, log) => {
  const transport = new VonageTransport(socket);
  return { transport, attach: (session) => runVonageStream(socket, transport, session, log) };
};
