import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

/** Outcome of an upgrade request: an open socket, or the HTTP status it was refused with. */
export type Connection = { socket: WebSocket } | { refused: number };

export function connect(url: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      resolve({ refused: response.statusCode ?? 0 });
      response.resume();
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

/**
 * Speaks Twilio Media Streams as Twilio does (provider-wire-formats §1.5): `connected`, `start`,
 * 20 ms `media` chunks of base64 µ-law on the inbound track, `mark` echoes, `stop`; sequence
 * numbers, chunk numbers and timestamps as strings. Collects what the server sends.
 */
export class TwilioStreamClient {
  readonly streamSid = sid('MZ');
  readonly callSid = sid('CA');
  readonly accountSid = sid('AC');
  readonly received: Record<string, unknown>[] = [];
  private sequence = 0;
  private chunk = 0;
  readonly closed: Promise<number>;

  constructor(
    readonly socket: WebSocket,
    private readonly runId: number,
  ) {
    socket.on('message', (data: Buffer) =>
      this.received.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>),
    );
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
  }

  private send(frame: object): void {
    this.socket.send(JSON.stringify(frame));
  }

  private next(): string {
    this.sequence += 1;
    return String(this.sequence);
  }

  begin(): void {
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    this.send({
      event: 'start',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: this.accountSid,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters: { run_id: String(this.runId) },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
  }

  /** Streams µ-law audio in 160-byte (20 ms) chunks. */
  media(mulaw: Uint8Array): void {
    for (let offset = 0; offset < mulaw.length; offset += 160) {
      this.chunk += 1;
      this.send({
        event: 'media',
        sequenceNumber: this.next(),
        streamSid: this.streamSid,
        media: {
          track: 'inbound',
          chunk: String(this.chunk),
          timestamp: String((this.chunk - 1) * 20),
          payload: Buffer.from(mulaw.subarray(offset, offset + 160)).toString('base64'),
        },
      });
    }
  }

  mark(name: string): void {
    this.send({ event: 'mark', sequenceNumber: this.next(), streamSid: this.streamSid, mark: { name } });
  }

  stop(): void {
    this.send({
      event: 'stop',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      stop: { accountSid: this.accountSid, callSid: this.callSid },
    });
  }
}
