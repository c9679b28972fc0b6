import type WebSocket from 'ws';
import type { Logger } from '../../platform/logger';
import { mulawToPcm16, pcm16ToMulaw } from '../../voice/codecs';
import type { MediaSession, MediaTransport } from '../../voice/media-session';
import { endOnClose, jsonOf, sendIfOpen } from './stream-support';
import {
  TwilioInboundFrame,
  twilioClear,
  twilioMark,
  twilioMedia,
} from '../../telephony/providers/twilio/media-frames';

/**
 * The outbound half of Twilio Media Streams. Twilio routes what we send by `streamSid`, which
 * only the `start` frame tells us, so anything sent before it is dropped (nothing speaks before
 * the stream has started).
 */
export class TwilioTransport implements MediaTransport {
  streamSid: string | null = null;

  constructor(private readonly socket: WebSocket) {}

  sendAudio(samples: Int16Array): void {
    if (this.streamSid) this.send(twilioMedia(this.streamSid, pcm16ToMulaw(samples)));
  }

  sendMark(name: string): void {
    if (this.streamSid) this.send(twilioMark(this.streamSid, name));
  }

  clear(): void {
    if (this.streamSid) this.send(twilioClear(this.streamSid));
  }

  private send(frame: string): void {
    sendIfOpen(this.socket, frame);
  }
}

/** Feeds a Twilio socket's frames into the session; `stop` or the socket closing ends it. */
export function runTwilioStream(
  socket: WebSocket,
  transport: TwilioTransport,
  session: MediaSession,
  log: Logger,
): void {
  const finish = endOnClose(socket, session, log, 'twilio');
  socket.on('message', (data, isBinary) => {
    const json = jsonOf(data, isBinary);
    if (json === undefined) {
      // Twilio only sends JSON text frames: anything else is not Twilio.
      socket.close(1003, 'Not a Twilio Media Streams frame');
      return;
    }
    const parsed = TwilioInboundFrame.safeParse(json);
    // Events this version does not know (or malformed ones) are skipped, not fatal to the call.
    if (!parsed.success) return;
    const frame = parsed.data;
    switch (frame.event) {
      case 'connected':
        return;
      case 'start': {
        const { mediaFormat } = frame.start;
        if (mediaFormat.encoding !== 'audio/x-mulaw' || mediaFormat.sampleRate !== 8000 || mediaFormat.channels !== 1) {
          socket.close(1003, 'Unsupported media format');
          return;
        }
        transport.streamSid = frame.start.streamSid;
        session.streamStarted({
          streamId: frame.start.streamSid,
          providerCallId: frame.start.callSid ?? null,
          mediaFormat,
          customParameters: frame.start.customParameters ?? {},
        });
        return;
      }
      case 'media':
        // Only the caller: we asked for the inbound track; our own audio is recorded as we send it.
        if (frame.media.track === undefined || frame.media.track === 'inbound') {
          session.callerAudio(mulawToPcm16(Buffer.from(frame.media.payload, 'base64')));
        }
        return;
      case 'mark':
        session.markPlayed(frame.mark.name);
        return;
      case 'dtmf':
        session.dtmf(frame.dtmf.digit);
        return;
      case 'stop':
        finish();
        socket.close(1000);
        return;
    }
  });
}
