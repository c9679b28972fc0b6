import type WebSocket from 'ws';
import type { Logger } from '../../platform/logger';
import { alawToPcm16, mulawToPcm16, pcm16ToAlaw, pcm16ToMulaw } from '../../voice/codecs';
import type { MediaSession, MediaTransport } from '../../voice/media-session';
import { endOnClose, jsonOf, sendIfOpen, type ProviderStreamFactory } from './stream-support';
import {
  TelnyxInboundFrame,
  telnyxClear,
  telnyxMark,
  telnyxMedia,
} from '../../telephony/providers/telnyx/media-frames';
import { SequenceReorder } from '../../telephony/providers/telnyx/media-reorder';

type Codec = 'PCMU' | 'PCMA';

/**
 * Telnyx media streaming, bidirectional `rtp` mode. The answer (telephony/providers/telnyx) asks
 * for PCMU both ways; PCMA is accepted too (Telnyx falls back to the call's codec when it cannot
 * transcode), and agent audio is sent in the codec `start` announced.
 */
export class TelnyxTransport implements MediaTransport {
  codec: Codec = 'PCMU';

  constructor(private readonly socket: WebSocket) {}

  sendAudio(samples: Int16Array): void {
    sendIfOpen(this.socket, telnyxMedia(this.codec === 'PCMA' ? pcm16ToAlaw(samples) : pcm16ToMulaw(samples)));
  }

  sendMark(name: string): void {
    sendIfOpen(this.socket, telnyxMark(name));
  }

  clear(): void {
    sendIfOpen(this.socket, telnyxClear());
  }
}

export function runTelnyxStream(
  socket: WebSocket,
  transport: TelnyxTransport,
  session: MediaSession,
  log: Logger,
): void {
  const reorder = new SequenceReorder<TelnyxInboundFrame>((frame) => handle(frame));
  // Registered before the session's end: frames still waiting for a gap are recorded, not lost.
  socket.on('close', () => reorder.flush());
  const finish = endOnClose(socket, session, log, 'telnyx');
  const handle = (frame: TelnyxInboundFrame) => {
    switch (frame.event) {
      case 'connected':
        return;
      case 'start': {
        const format = frame.start.media_format;
        if ((format.encoding !== 'PCMU' && format.encoding !== 'PCMA') || format.sample_rate !== 8000) {
          socket.close(1003, 'Unsupported media format');
          return;
        }
        transport.codec = format.encoding;
        session.streamStarted({
          streamId: frame.stream_id,
          providerCallId: frame.start.call_control_id ?? null,
          mediaFormat: { encoding: format.encoding, sampleRate: format.sample_rate, channels: format.channels },
          customParameters: frame.start.custom_parameters ?? {},
        });
        return;
      }
      case 'media': {
        if (frame.media.track !== undefined && frame.media.track !== 'inbound') return;
        const bytes = Buffer.from(frame.media.payload, 'base64');
        session.callerAudio(transport.codec === 'PCMA' ? alawToPcm16(bytes) : mulawToPcm16(bytes));
        return;
      }
      case 'dtmf':
        session.dtmf(frame.dtmf.digit);
        return;
      case 'mark':
        session.markPlayed(frame.mark.name);
        return;
      case 'error':
        log.warn({ runId: session.runId, error: frame.payload }, 'telnyx media stream error');
        return;
      case 'stop':
        reorder.flush();
        finish();
        socket.close(1000);
        return;
    }
  };
  socket.on('message', (data, isBinary) => {
    const json = jsonOf(data, isBinary);
    if (json === undefined) {
      socket.close(1003, 'Not a Telnyx media streaming frame');
      return;
    }
    const parsed = TelnyxInboundFrame.safeParse(json);
    if (!parsed.success) return;
    const frame = parsed.data;
    const sequence = 'sequence_number' in frame ? Number(frame.sequence_number) : NaN;
    // `connected` and `error` carry no sequence number: they are handled as they come.
    if (Number.isInteger(sequence) && sequence > 0) reorder.push(sequence, frame);
    else handle(frame);
  });
}

export const telnyxStream: ProviderStreamFactory = (socket, log) => {
  const transport = new TelnyxTransport(socket);
  return { transport, attach: (session) => runTelnyxStream(socket, transport, session, log) };
};
