import type { Browser } from 'playwright-core';
import { postJson } from './helpers';

/**
 * A person on the web-call page: a headless Chromium whose fake microphone plays a WAV file (its
 * timeline fixed: silence through the greeting, then the caller's sentences with room for each
 * reply), and a turn meter added to the page before its own script runs. The meter taps the
 * microphone's stream and the agent's incoming track with the page's Web Audio, polling their peak
 * level every few milliseconds, and times each turn as the phone bench caller does: from the
 * caller's last voiced sound to the first voiced sound of the agent's reply.
 */

/** A sample this loud (of full scale) is voiced: the phone caller's level, 500 of 32,768. */
export const VOICED_LEVEL = 500 / 32_768;
/** No agent sound for this long: the next one starts a reply (as the phone caller counts them). */
const REPLY_GAP_MS = 400;
/** The meter's polling period and window (256 samples, 5.3 ms at 48 kHz): its resolution. */
const POLL_MS = 4;
/** How long the agent may take to start, once the last sentence was said, before the call counts as failed. */
const ANSWER_TIMEOUT_MS = 20_000;

/** Runs in the page (plain JS, as the page's own script): `window.benchTurns` is read by the bench. */
const TURN_METER = `(() => {
  const meter = (window.benchTurns = { heard: [], agentVoicedAt: -1e9, micVoicedAt: 0, peer: null });
  let spokeSinceReply = false;
  const watch = (stream, voiced) => {
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 256;
    context.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let peak = 0;
      for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
      if (peak >= ${VOICED_LEVEL}) voiced(performance.now());
    }, ${POLL_MS});
  };
  const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = async (constraints) => {
    const stream = await getUserMedia(constraints);
    watch(stream, (now) => {
      meter.micVoicedAt = now;
      spokeSinceReply = true;
    });
    return stream;
  };
  const NativePeerConnection = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeerConnection {
    constructor(configuration) {
      super(configuration);
      meter.peer = this;
      this.addEventListener('track', (event) =>
        watch(event.streams[0] || new MediaStream([event.track]), (now) => {
          const replyStarts = now - meter.agentVoicedAt >= ${REPLY_GAP_MS};
          meter.agentVoicedAt = now;
          // A reply answers the caller once they have stopped: agent sound while they still speak is not one.
          const callerStopped = now - meter.micVoicedAt >= ${REPLY_GAP_MS};
          if (replyStarts && spokeSinceReply && callerStopped) {
            meter.heard.push(now - meter.micVoicedAt);
            spokeSinceReply = false;
          }
        }),
      );
    }
  };
})();`;

/**
 * In the page: the mean time the agent's audio spent in the browser's jitter buffer so far (ms),
 * from the peer connection's `inbound-rtp` statistics.
 */
const JITTER_BUFFER_MS = `(async () => {
  const peer = window.benchTurns.peer;
  if (!peer) return null;
  let delay = 0;
  let emitted = 0;
  (await peer.getStats()).forEach((report) => {
    if (report.type === 'inbound-rtp' && report.kind === 'audio') {
      delay += report.jitterBufferDelay || 0;
      emitted += report.jitterBufferEmittedCount || 0;
    }
  });
  return emitted > 0 ? (delay / emitted) * 1000 : null;
})()`;

interface PageReading {
  heard: number[];
  /** Since the agent's last voiced sound, ms. */
  agentQuietMs: number;
  state: string;
  ended: string | null;
}

export interface WebCallPlan {
  base: string;
  apiKey: string;
  agentId: number;
  /** Caller turns the microphone's recording holds: the bench hangs up once all are answered. */
  turns: number;
  /** How long the recording takes to reach its last sentence's end. */
  recordingMs: number;
}

export interface WebCallOutcome {
  runId: number | null;
  startedAt: number;
  endedAt: number;
  /** As the page had it: the caller's last voiced sound to the first voiced sound of the agent's reply. */
  heardMs: number[];
  /** The agent's audio's mean wait in the browser's jitter buffer over the call (ms), when the page had one. */
  jitterBufferMs: number | null;
  failure: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One web call: the API answers a token and page, a fresh browser context opens the page (its
 * microphone starts the recording from the top), the meter times every answered sentence, and the
 * person hangs up with the page's button once the last reply has been played out.
 */
export async function placeWebCall(browser: Browser, plan: WebCallPlan): Promise<WebCallOutcome> {
  const startedAt = Date.now();
  const outcome = (
    runId: number | null,
    heardMs: number[],
    failure: string | null,
    jitterBufferMs: number | null = null,
  ): WebCallOutcome => ({ runId, startedAt, endedAt: Date.now(), heardMs, jitterBufferMs, failure });
  let started: { workflow_run_id: number; page_url: string };
  try {
    started = await postJson(`${plan.base}/api/v1/workflow/${plan.agentId}/web-call`, {}, { 'X-API-Key': plan.apiKey });
  } catch (error) {
    return outcome(null, [], `web-call request: ${String(error)}`);
  }
  const runId = started.workflow_run_id;
  const context = await browser.newContext();
  try {
    await context.addInitScript({ content: TURN_METER });
    const page = await context.newPage();
    await page.goto(started.page_url);
    const read = (): Promise<PageReading> =>
      page.evaluate(() => {
        const page = globalThis as unknown as {
          benchTurns: { heard: number[]; agentVoicedAt: number };
          webCall: { state: string; ended: string | null };
          performance: { now(): number };
        };
        return {
          heard: [...page.benchTurns.heard],
          agentQuietMs: page.performance.now() - page.benchTurns.agentVoicedAt,
          state: page.webCall.state,
          ended: page.webCall.ended,
        };
      });
    const deadline = Date.now() + plan.recordingMs + ANSWER_TIMEOUT_MS;
    for (;;) {
      const reading = await read();
      if (reading.heard.length >= plan.turns && reading.agentQuietMs >= REPLY_GAP_MS) {
        const jitterBufferMs = await page.evaluate<number | null>(JITTER_BUFFER_MS);
        await page.click('#hangup');
        return outcome(runId, reading.heard, null, jitterBufferMs);
      }
      if (reading.state === 'ended') {
        return outcome(runId, reading.heard, `the call ended early: ${reading.ended ?? ''}`);
      }
      if (Date.now() > deadline) {
        await page.click('#hangup').catch(() => undefined);
        return outcome(runId, reading.heard, `${reading.heard.length} of ${plan.turns} turns answered in time`);
      }
      await sleep(100);
    }
  } catch (error) {
    return outcome(runId, [], `page: ${String(error)}`);
  } finally {
    await context.close();
  }
}
