import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { signalCallStatus } from '../../domain/calls/call-status-signal';
import type { IceServer } from '../../platform/config';
import { createWebCalls } from '../../telephony/providers/web/web-calls';
import type { ConversationEvent, MediaSession, MediaTransport } from '../../voice/media-session';
import { BrowserPeer } from '../../voice/webrtc/browser-peer';
import { endOnClose, jsonOf, sendIfOpen, type ProviderStreamFactory } from './stream-support';

/** What the page sends: its SDP offer, or that the person hung up. */
const PageMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('offer'),
    sdp: z
      .string()
      .min(1)
      .max(64 * 1024),
  }),
  z.object({ type: z.literal('hangup') }),
]);

/** After the conversation ended, how long the agent's last words may take to leave before the socket closes. */
const LAST_WORDS_MS = 3_000;

export interface WebStreamDeps {
  dataSource: DataSource;
  temporal: Client;
  iceServers: IceServer[];
}

/**
 * A web call's signalling socket, which is its media stream's endpoint (provider `web`): the page
 * gets the ICE servers (`ready`), sends its SDP offer and gets the answer; the audio then flows
 * over WebRTC (BrowserPeer), and the socket carries the conversation as it happens (`transcript`,
 * `event`, `ended`). The socket closing, the page's `hangup` or the peer failing ends the call:
 * `web_calls` says so and the call workflow is told at once.
 */
export function webStream(deps: WebStreamDeps): ProviderStreamFactory {
  const calls = createWebCalls(deps.dataSource);
  return (socket, log) => {
    let session: MediaSession | null = null;
    const send = (message: Record<string, unknown>) => sendIfOpen(socket, JSON.stringify(message));
    const peer = new BrowserPeer(deps.iceServers, {
      onCallerAudio: (samples) => session?.callerAudio(samples),
      onConnected: () => {
        if (!session || session.start) return;
        session.streamStarted({
          streamId: `web-${session.runId}`,
          providerCallId: null,
          mediaFormat: { encoding: 'audio/opus', sampleRate: 48_000, channels: 1 },
          customParameters: {},
        });
      },
      onGone: () => {
        log.warn({ runId: session?.runId }, 'web call connection failed or closed; the call ends');
        socket.close(1000);
      },
    });
    const transport: MediaTransport = {
      sendAudio: (samples) => peer.enqueue(samples),
      sendMark: (name) => peer.mark(() => session?.markPlayed(name)),
      clear: () => peer.clear(),
      announce: (event) => announce(event),
    };
    const announce = (event: ConversationEvent) => {
      if (event.type === 'turn' || event.type === 'reply') {
        send({ type: 'transcript', role: event.type === 'turn' ? 'user' : 'assistant', text: event.text ?? '' });
      } else if (event.type === 'ended') {
        // The agent ended the call: its last words go out (for a few seconds at most), then the page
        // is told and the socket closes.
        let told = false;
        const hangUp = () => {
          if (told) return;
          told = true;
          send({ type: 'ended', reason: event.reason });
          socket.close(1000);
        };
        peer.mark(hangUp);
        setTimeout(hangUp, LAST_WORDS_MS).unref();
      } else send({ type: 'event', name: event.type });
    };
    return {
      transport,
      attach(attached) {
        session = attached;
        const runId = attached.runId;
        endOnClose(socket, attached, log, 'web');
        const started = calls.started(runId);
        socket.on('close', () => {
          void peer.close().catch((error: unknown) => log.warn({ err: error, runId }, 'web call peer close failed'));
          void hungUp(runId, started).catch((error: unknown) =>
            log.error({ err: error, runId }, 'web call end not recorded; the workflow will look it up'),
          );
        });
        socket.on('message', (data, isBinary) => {
          const parsed = PageMessage.safeParse(jsonOf(data, isBinary));
          if (!parsed.success) {
            socket.close(1003, 'Not a web call message');
            return;
          }
          if (parsed.data.type === 'hangup') {
            socket.close(1000);
            return;
          }
          peer.answer(parsed.data.sdp).then(
            (sdp) => send({ type: 'answer', sdp }),
            (error: unknown) => {
              log.warn({ err: error, runId }, 'web call offer refused');
              send({ type: 'error', detail: 'The offer could not be answered' });
              socket.close(1003, 'Offer refused');
            },
          );
        });
        send({ type: 'ready', run_id: runId, ice_servers: deps.iceServers });
      },
    };
  };

  /** The call is over: `web_calls` records it and the call workflow hears it now rather than at its next look-up. */
  async function hungUp(runId: number, started: Promise<string | null>): Promise<void> {
    const providerCallId = await started;
    const durationSeconds = await calls.ended(runId);
    if (providerCallId === null || durationSeconds === null) return;
    await signalCallStatus(
      deps.temporal,
      { id: runId, temporalWorkflowId: null },
      { status: 'completed', providerCallId, durationSeconds },
    );
  }
}
