import WebSocket from 'ws';
import { TwilioStreamFrames } from '../../telephony/providers/twilio/stream-caller-frames';

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

/** A test's Twilio: the frames Twilio sends (`TwilioStreamFrames`), and what the server sends back. */
export class TwilioStreamClient {
  private readonly frames = new TwilioStreamFrames();
  readonly streamSid = this.frames.streamSid;
  readonly callSid = this.frames.callSid;
  readonly accountSid = this.frames.accountSid;
  readonly received: Record<string, unknown>[] = [];
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

  begin(): void {
    this.socket.send(this.frames.connected());
    this.socket.send(this.frames.start({ run_id: String(this.runId) }));
  }

  /** Streams µ-law audio in 160-byte (20 ms) chunks. */
  media(mulaw: Uint8Array): void {
    for (let offset = 0; offset < mulaw.length; offset += 160) {
      this.socket.send(this.frames.media(Buffer.from(mulaw.subarray(offset, offset + 160)).toString('base64')));
    }
  }

  mark(name: string): void {
    this.socket.send(this.frames.mark(name));
  }

  stop(): void {
    this.socket.send(this.frames.stop());
  }
}
