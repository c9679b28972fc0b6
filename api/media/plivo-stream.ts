import type WebSocket from 'ws';
import type { Logger } from '../../platform/logger';
import { mulawToPcm16, pcm16ToMulaw } from '../../voice/codecs';
import type { MediaSession, MediaTransport } from '../../voice/media-session';
import {
  parseExtraHeaders,
  PlivoInboundFrame,
  plivoCheckpoint,
  plivoClearAudio,
  plivoPlayAudio,
} from '../../telephony/providers/plivo/media-frames';
import { endOnClose, jsonOf, sendIfOpen, type ProviderStreamFactory } from './stream-support';

/**
 * Plivo and Vobiz (Plivo-compatible, §3) audio streams. The answer XML asks for
 * `contentType="audio/x-mulaw;rate=8000"` (telephony/providers/plivo-compatible/markup.ts), so
 * µ-law 8 kHz is the only format accepted. `playAudio` names no stream; `checkpoint` and
 * `clearAudio` do, so they wait for `start`.
 */
export class PlivoTransport implements MediaTransport {
  streamId: string | null = null;

  constructor(private readonly socket: WebSocket) {}

  sendAudio(samples: Int16Array): void {
    sendIfOpen(this.socket, plivoPlayAudio(pcm16ToMulaw(samples)));
  }

  sendMark(name: string): void {
    if (this.streamId) sendIfOpen(this.socket, plivoCheckpoint(this.streamId, name));
  }

  clear(): void {
    if (this.streamId) sendIfOpen(this.socket, plivoClearAudio(this.streamId));
  }
}

export function runPlivoStream(socket: WebSocket, transport: PlivoTransport, session: MediaSession, log: Logger): void {
  const finish = endOnClose(socket, session, log, 'plivo');
  socket.on('message', (data, isBinary) => {
    const json = jsonOf(data, isBinary);
    if (json === undefined) {
      socket.close(1003, 'Not a Plivo audio stream frame');
      return;
    }
    const parsed = PlivoInboundFrame.safeParse(json);
    // Unknown or malformed events are skipped, not fatal to the call.
    if (!parsed.success) return;
    const frame = parsed.data;
    switch (frame.event) {
      case 'start': {
        const { mediaFormat, streamId, callId } = frame.start;
        if (mediaFormat.encoding !== 'audio/x-mulaw' || mediaFormat.sampleRate !== 8000) {
          socket.close(1003, 'Unsupported media format');
          return;
        }
        transport.streamId = streamId;
        session.streamStarted({
          streamId,
          providerCallId: callId,
          mediaFormat: { ...mediaFormat, channels: 1 },
          customParameters: parseExtraHeaders(frame.extra_headers),
        });
        return;
      }
      case 'media':
        if (frame.media.track === undefined || frame.media.track === 'inbound') {
          session.callerAudio(mulawToPcm16(Buffer.from(frame.media.payload, 'base64')));
        }
        return;
      case 'dtmf':
        session.dtmf(frame.dtmf.digit);
        return;
      case 'playedStream':
        session.markPlayed(frame.name);
        return;
      case 'clearedAudio':
        return;
      case 'stop':
        finish();
        socket.close(1000);
        return;
    }
  });
}

export const plivoStream: ProviderStreamFactory = (socket, log) => {
  const transport = new PlivoTransport(socket);
  return { transport, attach: (session) => runPlivoStream(socket, transport, session, log) };
};
