import { randomBytes } from 'node:crypto';

export const twilioSid = (prefix: 'AC' | 'CA' | 'MZ') => prefix + randomBytes(16).toString('hex');

/**
 * Twilio's side of one Media Stream (provider-wire-formats §1.5), as the JSON text frames Twilio
 * sends: `connected`, `start`, 20 ms `media` chunks of base64 µ-law on the inbound track, `mark`
 * echoes and `stop`, with sequence numbers, chunk numbers and timestamps as strings. The
 * simulator's audio callee speaks it, and so do the tests' and the voice bench's callers.
 */
export class TwilioStreamFrames {
  readonly streamSid = twilioSid('MZ');
  private sequence = 0;
  private chunk = 0;

  constructor(
    readonly callSid: string = twilioSid('CA'),
    readonly accountSid: string = twilioSid('AC'),
  ) {}

  connected(): string {
    return JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  }

  start(customParameters: Record<string, string> = {}): string {
    return JSON.stringify({
      event: 'start',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: this.accountSid,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
  }

  /** One 20 ms chunk; built as text, since a caller sends fifty a second. */
  media(mulawBase64: string): string {
    this.chunk += 1;
    return (
      `{"event":"media","sequenceNumber":"${this.next()}","streamSid":"${this.streamSid}",` +
      `"media":{"track":"inbound","chunk":"${this.chunk}","timestamp":"${(this.chunk - 1) * 20}",` +
      `"payload":"${mulawBase64}"}}`
    );
  }

  mark(name: string): string {
    return JSON.stringify({ event: 'mark', sequenceNumber: this.next(), streamSid: this.streamSid, mark: { name } });
  }

  stop(): string {
    return JSON.stringify({
      event: 'stop',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      stop: { accountSid: this.accountSid, callSid: this.callSid },
    });
  }

  private next(): string {
    this.sequence += 1;
    return String(this.sequence);
  }
}
