import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { alawToPcm16, mulawToPcm16, pcm16FromBytes, pcm16ToAlaw, pcm16ToBytes, pcm16ToMulaw } from '../../voice/codecs';

/**
 * Test clients that speak each provider's media protocol as the provider's documentation
 * describes it (docs/guides/media-streams.md). Each collects what
 * the server sends: text frames (JSON parsed, or plain text for Asterisk) and binary frames.
 */
export abstract class MediaClient {
  readonly text: unknown[] = [];
  readonly binary: Buffer[] = [];
  readonly closed: Promise<number>;
  /** The caller audio's sample rate on the wire. */
  readonly rate: number = 8000;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) this.binary.push(data);
      else this.text.push(this.readText(data.toString('utf8')));
    });
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
  }

  protected readText(text: string): unknown {
    return JSON.parse(text) as unknown;
  }

  protected json(frame: object): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Splits caller audio (PCM16 at `rate`) into 20 ms frames and sends each. */
  sendCaller(samples: Int16Array): void {
    const frame = this.rate / 50;
    for (let offset = 0, chunk = 1; offset < samples.length; offset += frame, chunk++) {
      this.sendFrame(samples.subarray(offset, offset + frame), chunk);
    }
  }

  private framesSent = 0;

  /** Sends one 20 ms frame of a stream paced in real time (chunk numbers carry on). */
  sendCallerFrame(frame: Int16Array): void {
    this.framesSent += 1;
    this.sendFrame(frame, this.framesSent);
  }

  abstract begin(): void;
  protected abstract sendFrame(samples: Int16Array, chunk: number): void;
  /** The agent audio received so far, decoded to PCM16 at the wire's rate. */
  abstract agentAudio(): Int16Array;
  /** The provider's "this audio has played" for a mark. */
  abstract markPlayed(name: string): void;
  abstract dtmf(digit: string): void;
  /** The provider's end of stream: a stop frame, or closing the socket where there is none. */
  abstract stop(): void;
}

const concat = (parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Plivo `<Stream>` (§2.5); with `vobiz`, Vobiz (§3): the same frames, no `stop`, the socket closes. */
export class PlivoClient extends MediaClient {
  readonly streamId = randomUUID();
  readonly callId = randomUUID();
  private sequence = 0;

  constructor(
    socket: WebSocket,
    private readonly runId: number,
    private readonly vobiz = false,
  ) {
    super(socket);
  }

  begin(): void {
    this.json({
      event: 'start',
      sequenceNumber: ++this.sequence,
      start: {
        callId: this.callId,
        streamId: this.streamId,
        accountId: 'MAXXXXXXXXXXXXXXXXXX',
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 },
      },
      extra_headers: `runId=${this.runId}`,
    });
  }

  protected sendFrame(samples: Int16Array, chunk: number): void {
    this.json({
      event: 'media',
      sequenceNumber: ++this.sequence,
      streamId: this.streamId,
      media: { track: 'inbound', timestamp: String((chunk - 1) * 20), chunk, payload: b64(pcm16ToMulaw(samples)) },
    });
  }

  agentAudio(): Int16Array {
    return concat(
      this.text
        .filter(
          (frame): frame is { event: 'playAudio'; media: { payload: string } } =>
            (frame as { event?: string }).event === 'playAudio',
        )
        .map((frame) => mulawToPcm16(Buffer.from(frame.media.payload, 'base64'))),
    );
  }

  markPlayed(name: string): void {
    this.json({ event: 'playedStream', sequenceNumber: ++this.sequence, streamId: this.streamId, name });
  }

  dtmf(digit: string): void {
    this.json({
      event: 'dtmf',
      sequenceNumber: ++this.sequence,
      streamId: this.streamId,
      dtmf: { digit, track: 'inbound' },
    });
  }

  stop(): void {
    if (this.vobiz) this.socket.close(1000);
    else this.json({ event: 'stop', sequenceNumber: ++this.sequence, streamId: this.streamId });
  }
}

/**
 * Telnyx media streaming (§4.5), PCMU or PCMA. Frame order is not guaranteed, so this client
 * sends each pair of media frames swapped; the server must put them back by `sequence_number`.
 */
export class TelnyxClient extends MediaClient {
  readonly streamId = randomUUID().toUpperCase();
  readonly callControlId = `v2:${randomUUID()}`;
  private sequence = 0;
  private held: object | null = null;

  constructor(
    socket: WebSocket,
    private readonly codec: 'PCMU' | 'PCMA' = 'PCMU',
  ) {
    super(socket);
  }

  private next(): string {
    return String(++this.sequence);
  }

  begin(): void {
    this.json({ event: 'connected', version: '1.0.0' });
    this.json({
      event: 'start',
      sequence_number: this.next(),
      stream_id: this.streamId,
      start: {
        user_id: randomUUID(),
        call_control_id: this.callControlId,
        call_session_id: randomUUID(),
        from: '+13122010094',
        to: '+13122123456',
        client_state: 'aGF2ZSBhIG5pY2UgZGF5',
        custom_parameters: {},
        media_format: { encoding: this.codec, sample_rate: 8000, channels: 1 },
      },
    });
  }

  protected sendFrame(samples: Int16Array, chunk: number): void {
    const payload = this.codec === 'PCMA' ? pcm16ToAlaw(samples) : pcm16ToMulaw(samples);
    const frame = {
      event: 'media',
      sequence_number: this.next(),
      stream_id: this.streamId,
      media: { track: 'inbound', chunk: String(chunk), timestamp: String((chunk - 1) * 20), payload: b64(payload) },
    };
    if (this.held) {
      this.json(frame);
      this.json(this.held);
      this.held = null;
    } else {
      this.held = frame;
    }
  }

  agentAudio(): Int16Array {
    const decode = this.codec === 'PCMA' ? alawToPcm16 : mulawToPcm16;
    return concat(
      this.text
        .filter(
          (frame): frame is { event: 'media'; media: { payload: string } } =>
            (frame as { event?: string }).event === 'media',
        )
        .map((frame) => decode(Buffer.from(frame.media.payload, 'base64'))),
    );
  }

  markPlayed(name: string): void {
    this.flushHeld();
    this.json({ event: 'mark', sequence_number: this.next(), stream_id: this.streamId, mark: { name } });
  }

  dtmf(digit: string): void {
    this.flushHeld();
    this.json({ event: 'dtmf', sequence_number: this.next(), stream_id: this.streamId, dtmf: { digit } });
  }

  stop(): void {
    this.flushHeld();
    this.json({
      event: 'stop',
      sequence_number: this.next(),
      stream_id: this.streamId,
      stop: { user_id: randomUUID(), call_control_id: this.callControlId },
    });
  }

  private flushHeld(): void {
    if (this.held) this.json(this.held);
    this.held = null;
  }
}

/** Cloudonix `<Connect><Stream>` (§6.4): presumed Twilio Media Streams (§1.5), which this speaks. */
export class CloudonixClient extends MediaClient {
  readonly streamSid = `MZ${randomUUID().replace(/-/g, '')}`;
  readonly callSid = randomUUID();
  private sequence = 0;

  private next(): string {
    return String(++this.sequence);
  }

  begin(): void {
    this.json({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    this.json({
      event: 'start',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters: {},
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
  }

  protected sendFrame(samples: Int16Array, chunk: number): void {
    this.json({
      event: 'media',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      media: {
        track: 'inbound',
        chunk: String(chunk),
        timestamp: String((chunk - 1) * 20),
        payload: b64(pcm16ToMulaw(samples)),
      },
    });
  }

  agentAudio(): Int16Array {
    return concat(
      this.text
        .filter(
          (frame): frame is { event: 'media'; media: { payload: string } } =>
            (frame as { event?: string }).event === 'media',
        )
        .map((frame) => mulawToPcm16(Buffer.from(frame.media.payload, 'base64'))),
    );
  }

  markPlayed(name: string): void {
    this.json({ event: 'mark', sequenceNumber: this.next(), streamSid: this.streamSid, mark: { name } });
  }

  dtmf(digit: string): void {
    this.json({
      event: 'dtmf',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      dtmf: { track: 'inbound_track', digit },
    });
  }

  stop(): void {
    this.json({
      event: 'stop',
      sequenceNumber: this.next(),
      streamSid: this.streamSid,
      stop: { callSid: this.callSid },
    });
  }
}

/** Vonage WebSocket (§5.5): a JSON first frame, then binary 16 kHz L16 in 640-byte frames. */
export class VonageClient extends MediaClient {
  override readonly rate = 16000;

  constructor(
    socket: WebSocket,
    private readonly runId: number,
    private readonly withEvent = true,
  ) {
    super(socket);
  }

  begin(): void {
    // Older Vonage docs omit `event`; both forms are sent by some Vonage regions.
    this.json({
      ...(this.withEvent ? { event: 'websocket:connected' } : {}),
      'content-type': 'audio/l16;rate=16000',
      run_id: String(this.runId),
    });
  }

  protected sendFrame(samples: Int16Array): void {
    this.socket.send(pcm16ToBytes(samples));
  }

  agentAudio(): Int16Array {
    return concat(this.binary.map((frame) => pcm16FromBytes(frame)));
  }

  markPlayed(name: string): void {
    this.json({ event: 'websocket:notify', payload: { name } });
  }

  dtmf(digit: string): void {
    this.json({ event: 'websocket:dtmf', digit, duration: 260 });
  }

  stop(): void {
    this.socket.close(1000);
  }
}

/** Asterisk chan_websocket (§7.4), control messages as plain text or JSON; ulaw or slin16 audio. */
export class AriClient extends MediaClient {
  override readonly rate: number;
  readonly connectionId = `media_${randomUUID().slice(0, 8)}`;
  readonly channelId = `${Math.floor(Date.now() / 1000)}.1`;

  constructor(
    socket: WebSocket,
    private readonly control: 'plain-text' | 'json',
    private readonly format: 'ulaw' | 'slin16',
  ) {
    super(socket);
    this.rate = format === 'slin16' ? 16000 : 8000;
  }

  protected override readText(text: string): unknown {
    return this.control === 'json' ? (JSON.parse(text) as unknown) : text;
  }

  private event(event: string, fields: Record<string, string | number>): void {
    if (this.control === 'json') {
      this.json({ event, channel_id: this.channelId, ...fields });
    } else {
      this.socket.send([event, ...Object.entries(fields).map(([k, v]) => `${k}:${v}`)].join(' '));
    }
  }

  begin(): void {
    const frameSize = this.format === 'slin16' ? 640 : 160;
    this.event('MEDIA_START', {
      connection_id: this.connectionId,
      channel: `WebSocket/${this.connectionId}/0x5140001a0040`,
      format: this.format,
      optimal_frame_size: frameSize,
      ptime: 20,
    });
  }

  protected sendFrame(samples: Int16Array): void {
    this.socket.send(this.format === 'ulaw' ? Buffer.from(pcm16ToMulaw(samples)) : pcm16ToBytes(samples));
  }

  agentAudio(): Int16Array {
    const frames = this.binary.map((frame) => (this.format === 'ulaw' ? mulawToPcm16(frame) : pcm16FromBytes(frame)));
    return concat(frames);
  }

  markPlayed(name: string): void {
    this.event('MEDIA_MARK_PROCESSED', { correlation_id: name });
  }

  dtmf(digit: string): void {
    this.event('DTMF_END', { digit });
  }

  /** Hanging the channel up closes the socket; chan_websocket has no stop event. */
  stop(): void {
    this.socket.close(1000);
  }
}
