import type WebSocket from 'ws';
import type { Logger } from '../../platform/logger';
import { alawToPcm16, mulawToPcm16, pcm16FromBytes, pcm16ToAlaw, pcm16ToBytes, pcm16ToMulaw } from '../../voice/codecs';
import type { MediaSession, MediaTransport } from '../../voice/media-session';
import { Downsampler16kTo8k, Upsampler8kTo16k } from '../../voice/resample';
import { AriControlEvent, ariCommand, readControl, type ControlFormat } from './ari-control';
import { endOnClose, rawBytes, sendIfOpen, type ProviderStreamFactory } from './stream-support';

/** The chan_websocket formats served, with their sample rate; others are refused at MEDIA_START. */
const FORMATS = { ulaw: 8000, alaw: 8000, slin: 8000, slin16: 16000 } as const;
type Format = keyof typeof FORMATS;
const isFormat = (name: string): name is Format => Object.hasOwn(FORMATS, name);

/**
 * Asterisk external media over chan_websocket (§7.4): binary frames of raw audio in the format
 * MEDIA_START negotiated (Asterisk re-frames what it is sent, so any size will do), text frames
 * for control. Barge-in is `FLUSH_MEDIA`; marks are `MARK_MEDIA`, answered by
 * `MEDIA_MARK_PROCESSED`. Commands go in the control format Asterisk used for MEDIA_START. Nothing
 * is sent before MEDIA_START: the format is not known yet.
 */
export class AriTransport implements MediaTransport {
  format: Format | null = null;
  control: ControlFormat = 'plain-text';
  private upsampler = new Upsampler8kTo16k();

  constructor(private readonly socket: WebSocket) {}

  sendAudio(samples: Int16Array): void {
    if (!this.format) return;
    sendIfOpen(this.socket, Buffer.from(this.encode(samples)));
  }

  sendMark(name: string): void {
    // The exact argument syntax is unconfirmed (§7.4); `correlation_id` as STOP_MEDIA_BUFFERING takes it.
    if (this.format) sendIfOpen(this.socket, ariCommand(this.control, 'MARK_MEDIA', { correlation_id: name }));
  }

  clear(): void {
    if (!this.format) return;
    this.upsampler = new Upsampler8kTo16k();
    sendIfOpen(this.socket, ariCommand(this.control, 'FLUSH_MEDIA'));
  }

  private encode(samples: Int16Array): Uint8Array {
    switch (this.format) {
      case 'ulaw':
        return pcm16ToMulaw(samples);
      case 'alaw':
        return pcm16ToAlaw(samples);
      case 'slin16':
        return pcm16ToBytes(this.upsampler.process(samples));
      default:
        return pcm16ToBytes(samples);
    }
  }
}

/** Asterisk sends no stop event: hanging the channel up closes the socket, which ends the session. */
export function runAriStream(socket: WebSocket, transport: AriTransport, session: MediaSession, log: Logger): void {
  endOnClose(socket, session, log, 'ari');
  const downsampler = new Downsampler16kTo8k();
  socket.on('message', (data, isBinary) => {
    const bytes = rawBytes(data);
    if (isBinary) {
      switch (transport.format) {
        case null:
          return;
        case 'ulaw':
          return session.callerAudio(mulawToPcm16(bytes));
        case 'alaw':
          return session.callerAudio(alawToPcm16(bytes));
        case 'slin16':
          return session.callerAudio(downsampler.process(pcm16FromBytes(bytes)));
        default:
          return session.callerAudio(pcm16FromBytes(bytes));
      }
    }
    const control = readControl(bytes.toString('utf8'));
    const parsed = control ? AriControlEvent.safeParse(control.fields) : null;
    // MEDIA_XOFF/XON, QUEUE_DRAINED, STATUS and the like are not needed yet.
    if (!control || !parsed?.success) return;
    const event = parsed.data;
    switch (event.event) {
      case 'MEDIA_START': {
        if (!isFormat(event.format)) {
          socket.close(1003, 'Unsupported media format');
          return;
        }
        transport.format = event.format;
        transport.control = control.format;
        session.streamStarted({
          streamId: event.connection_id,
          providerCallId: event.channel_id ?? event.channel ?? null,
          mediaFormat: { encoding: event.format, sampleRate: FORMATS[event.format], channels: 1 },
          customParameters: {},
        });
        return;
      }
      case 'DTMF_END':
        session.dtmf(event.digit);
        return;
      case 'MEDIA_MARK_PROCESSED':
        session.markPlayed(event.correlation_id);
        return;
    }
  });
}

export const ariStream: ProviderStreamFactory = (socket, log) => {
  const transport = new AriTransport(socket);
  return { transport, attach: (session) => runAriStream(socket, transport, session, log) };
};
