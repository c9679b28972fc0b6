import { MediaStreamTrack, RTCPeerConnection, RtpHeader, RtpPacket, useOPUS, type RTCIceServer } from 'werift';
import { OPUS_FRAME_SAMPLES, OpusToPipeline, PipelineToOpus } from './opus-audio';

const FRAME_MS = 20;
/** Frames sent at most in one tick when the event loop fell behind (the rest are dropped as late). */
const MAX_CATCH_UP_FRAMES = 5;
/** How long the answer waits for our ICE candidates (host ones come at once; STUN ones may take longer). */
const GATHER_TIMEOUT_MS = 3_000;

export interface BrowserPeerHandlers {
  /** Caller audio, PCM16 at 8 kHz, as it arrives. */
  onCallerAudio(samples: Int16Array): void;
  /** ICE and DTLS are up: media flows. */
  onConnected(): void;
  /** The connection failed or closed. */
  onGone(): void;
}

interface Mark {
  /** Where in the outgoing audio (48 kHz samples) the mark stands. */
  at: number;
  played: () => void;
}

/**
 * One browser's WebRTC connection (werift), audio only: it answers the browser's offer, decodes
 * the caller's Opus into 8 kHz PCM16, and sends the agent's audio back as Opus in real time, one
 * 20 ms packet per tick (silence when the agent is quiet). Marks are reported once the audio
 * before them has been sent; clearing drops what has not been sent.
 */
export class BrowserPeer {
  private readonly pc: RTCPeerConnection;
  private readonly track = new MediaStreamTrack({ kind: 'audio' });
  private readonly decoder = new OpusToPipeline();
  private readonly encoder = new PipelineToOpus();
  private outgoing: Int16Array[] = [];
  /** 48 kHz samples queued so far and sent so far: marks stand on this clock. */
  private enqueuedTotal = 0;
  private sentTotal = 0;
  private marks: Mark[] = [];
  private pending: Int16Array = new Int16Array(0);
  private ticker: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private framesSent = 0;
  private sequence = Math.floor(Math.random() * 0xffff);
  private timestamp = Math.floor(Math.random() * 0xffffffff);
  private closed = false;

  constructor(
    iceServers: RTCIceServer[],
    private readonly handlers: BrowserPeerHandlers,
  ) {
    this.pc = new RTCPeerConnection({ iceServers, codecs: { audio: [useOPUS()], video: [] } });
    this.pc.addTransceiver(this.track, { direction: 'sendrecv' });
    this.pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        if (this.closed || rtp.payload.length === 0) return;
        const samples = this.decoder.decode(rtp.payload);
        if (samples.length > 0) this.handlers.onCallerAudio(samples);
      });
    });
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        this.startSending();
        this.handlers.onConnected();
      } else if ((state === 'failed' || state === 'closed') && !this.closed) this.handlers.onGone();
    });
  }

  /** The SDP answer to the browser's offer, with our ICE candidates in it. */
  async answer(offerSdp: string): Promise<string> {
    await this.pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    await this.gathered();
    const description = this.pc.localDescription;
    if (!description) throw new Error('no local description after the answer');
    return description.sdp;
  }

  /** Agent audio (PCM16, 8 kHz) to send after what is queued. */
  enqueue(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    const upsampled = this.encoder.upsample(samples);
    this.outgoing.push(upsampled);
    this.enqueuedTotal += upsampled.length;
  }

  /** Calls `played` once the audio queued so far has been sent. */
  mark(played: () => void): void {
    if (this.enqueuedTotal <= this.sentTotal) played();
    else this.marks.push({ at: this.enqueuedTotal, played });
  }

  /** Barge-in: what has not been sent is dropped, and its marks count as played. */
  clear(): void {
    this.outgoing = [];
    this.pending = new Int16Array(0);
    this.enqueuedTotal = this.sentTotal;
    for (const mark of this.marks.splice(0)) mark.played();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.decoder.close();
    this.encoder.close();
    await this.pc.close();
  }

  private gathered(): Promise<void> {
    if (this.pc.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, GATHER_TIMEOUT_MS);
      const subscription = this.pc.iceGatheringStateChange.subscribe((state) => {
        if (state === 'complete') done();
      });
      function done() {
        clearTimeout(timer);
        subscription.unSubscribe();
        resolve();
      }
    });
  }

  /** Real time, by the wall clock: each tick sends the frames due since the start. */
  private startSending(): void {
    if (this.ticker || this.closed) return;
    this.startedAt = Date.now();
    this.ticker = setInterval(() => this.tick(), FRAME_MS);
  }

  private tick(): void {
    const due = Math.floor((Date.now() - this.startedAt) / FRAME_MS) - this.framesSent;
    if (due > MAX_CATCH_UP_FRAMES) {
      const skipped = due - MAX_CATCH_UP_FRAMES;
      this.framesSent += skipped;
      // The skipped time is a gap in the stream's clock (as with discontinuous transmission): the
      // browser's jitter buffer sees a pause, not every later packet arriving late by the stall.
      this.timestamp = (this.timestamp + skipped * OPUS_FRAME_SAMPLES) >>> 0;
    }
    for (let i = 0; i < Math.min(due, MAX_CATCH_UP_FRAMES); i++) this.sendFrame();
  }

  private sendFrame(): void {
    const frame = this.nextFrame();
    const header = new RtpHeader({
      payloadType: 111,
      sequenceNumber: this.sequence,
      timestamp: this.timestamp,
      marker: false,
    });
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + OPUS_FRAME_SAMPLES) >>> 0;
    this.framesSent += 1;
    this.track.writeRtp(new RtpPacket(header, this.encoder.encode(frame)));
    this.settleMarks();
  }

  /** The next 20 ms of agent audio at 48 kHz, padded with silence. */
  private nextFrame(): Int16Array {
    const frame = new Int16Array(OPUS_FRAME_SAMPLES);
    let filled = 0;
    while (filled < OPUS_FRAME_SAMPLES) {
      if (this.pending.length === 0) {
        const next = this.outgoing.shift();
        if (!next) break;
        this.pending = next;
      }
      const take = Math.min(OPUS_FRAME_SAMPLES - filled, this.pending.length);
      frame.set(this.pending.subarray(0, take), filled);
      this.pending = this.pending.subarray(take);
      filled += take;
    }
    this.sentTotal += filled;
    return frame;
  }

  private settleMarks(): void {
    while (this.marks.length > 0 && (this.marks[0] as Mark).at <= this.sentTotal) this.marks.shift()?.played();
  }
}
