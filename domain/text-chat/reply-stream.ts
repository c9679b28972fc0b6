import type { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  createReplyChannelRepository,
  type ChannelListener,
  type ReplyChannelRepository,
} from '../../entities/repositories/reply-channel.repository';
import { parseJson } from '../../platform/json';

/**
 * The agent's reply to a text chat message, relayed piece by piece while its turn runs on a worker
 * to the API process that holds the person's request: over PostgreSQL NOTIFY, on a channel of the
 * request's own (`streamId`), which that process LISTENs on before the message is sent. The relay
 * is a courtesy for readers who want the text at once; the reply itself is the workflow Update's
 * answer, and a piece lost on the way loses nothing.
 */

/** A stream's id: 32 hex digits, made by the API for one message. */
export const STREAM_ID = /^[0-9a-f]{32}$/;

const channelOf = (streamId: string): string => {
  if (!STREAM_ID.test(streamId)) throw new Error('A reply stream id is 32 hex digits');
  return `switchboard_reply_${streamId}`;
};

/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more; the text's share, in characters of up to 4 bytes. */
const MAX_PIECE_CHARS = 1_800;

/**
 * One notification: text of the reply, in order (`seq` from 0 within a try); `attempt` is the try
 * of the agent's turn it belongs to (a turn retried on another worker starts its text again). The
 * first of each try has no text: the turn has begun, so the session took the message.
 */
const replyPiece = z.object({
  attempt: z.number().int().positive(),
  seq: z.number().int().min(0),
  text: z.string(),
});
export type ReplyPiece = z.infer<typeof replyPiece>;

/** Pieces waiting beyond this many are sent together: a reader falls behind a fast model no further. */
const MAX_WAITING_PIECES = 32;

/**
 * Sends a turn's pieces as they come, in order, one NOTIFY at a time, starting with the empty piece
 * that says the turn has begun. `flush` waits until all are sent; a failed send is dropped (the
 * reply is whole in the Update's answer).
 */
export class ReplyPublisher {
  private readonly channel: string;
  private readonly channels: ReplyChannelRepository;
  private waiting: string[] = [];
  private seq = 0;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    dataSource: DataSource,
    streamId: string,
    private readonly attempt: number,
  ) {
    this.channel = channelOf(streamId);
    this.channels = createReplyChannelRepository(dataSource);
    this.enqueue('');
  }

  push(text: string): void {
    if (text) this.enqueue(text);
  }

  flush(): Promise<void> {
    return this.sending;
  }

  private enqueue(text: string): void {
    if (this.waiting.length >= MAX_WAITING_PIECES) {
      this.waiting[this.waiting.length - 1] += text;
      return;
    }
    this.waiting.push(text);
    if (this.waiting.length === 1) this.sending = this.sending.then(() => this.sendWaiting());
  }

  private async sendWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const text = (this.waiting[0] ?? '').slice(0, MAX_PIECE_CHARS);
      const left = (this.waiting[0] ?? '').slice(text.length);
      const piece: ReplyPiece = { attempt: this.attempt, seq: this.seq, text };
      this.seq += 1;
      try {
        await this.channels.notify(this.channel, JSON.stringify(piece));
      } catch {
        // A piece lost: the reader gets the whole reply at the end.
      }
      if (left) this.waiting[0] = left;
      else this.waiting.shift();
    }
  }
}

/**
 * LISTENs for a stream's pieces over a connection of its own (closed with the listener: a stream
 * lasts one reply). Resolves once listening, so a message sent after it loses no piece. A lost
 * connection only ends the relay; the reply still comes whole.
 */
export async function listenForReply(
  dataSource: DataSource,
  streamId: string,
  onPiece: (piece: ReplyPiece) => void,
): Promise<ChannelListener> {
  return createReplyChannelRepository(dataSource).listen(channelOf(streamId), (payload) => {
    const parsed = replyPiece.safeParse(parseJson(payload));
    if (parsed.success) onPiece(parsed.data);
  });
}
