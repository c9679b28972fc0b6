import { createHash } from 'node:crypto';
import { ProviderError, type StartTransferRequest, type TransferStatus } from '../../provider';
import { dialString, type AriClient } from './client';
import type { AriConfig } from './config';
import { bridgeIdFor, mediaChannelIdFor } from './media-bridge';

const TRANSFER_CHANNEL_ID = /^sb-xfer-(\d{1,15})-[0-9a-f]{16}$/;

/** The destination's channel: named after the run and the tool call, so a repeated start names it again. */
export const transferChannelIdFor = (runId: number, idempotencyKey: string): string =>
  `sb-xfer-${runId}-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 16)}`;

/** The run of one of our transfer channels, or undefined for any other channel. */
export function runIdOfTransferChannel(channelId: string): number | undefined {
  const match = TRANSFER_CHANNEL_ID.exec(channelId);
  return match?.[1] ? Number(match[1]) : undefined;
}

const statusOf = (error: unknown): number | undefined => (error instanceof ProviderError ? error.status : undefined);

/** Runs `request`, treating the listed statuses as "already so" (the step is repeated or moot). */
async function tolerating(statuses: number[], request: Promise<unknown>): Promise<void> {
  try {
    await request;
  } catch (error) {
    if (!statuses.includes(statusOf(error) ?? -1)) throw error;
  }
}

/**
 * A transfer on Asterisk, in the run's mixing bridge (media-bridge.ts): the destination is
 * originated into our Stasis app; meanwhile the agent's external media channel leaves the bridge
 * and the caller hears music on hold. Answered: the destination joins the bridge, the music stops
 * and the media channel is hung up (the agent is done). Not answered: the music stops and the
 * media channel comes back (the agent carries on). Every step is safe to repeat, so the events
 * listener and the workflow's look-ups may both take it.
 */
export class AriTransferBridge {
  constructor(
    private readonly client: AriClient,
    private readonly config: AriConfig,
  ) {}

  /** Dials the destination (a repeat finds it dialed) and puts the caller on hold. */
  async ring(request: StartTransferRequest): Promise<string> {
    if (!this.config.stasis_app_name) throw new ProviderError('ARI stasis_app_name is not set');
    const channelId = transferChannelIdFor(request.runId, request.idempotencyKey);
    const query = new URLSearchParams({
      endpoint: dialString(request.destination, this.config.dial_string_template),
      app: this.config.stasis_app_name,
      appArgs: `transfer_run_id=${request.runId}`,
      timeout: String(request.ringTimeoutSeconds),
    });
    if (request.from) query.set('callerId', request.from);
    await tolerating(
      [409],
      this.client.request({ method: 'POST', path: `/ari/channels/${channelId}?${query.toString()}` }),
    );
    const bridge = bridgeIdFor(request.runId);
    // 422: the media channel is not in the bridge (it left already, or never joined).
    await tolerating([422], this.bridgeCommand(bridge, 'removeChannel', mediaChannelIdFor(request.runId)));
    await this.client.request({ method: 'POST', path: `/ari/bridges/${bridge}/moh` });
    return channelId;
  }

  /** The destination answered: into the bridge, music off, the agent's media channel hung up. */
  async join(runId: number, channelId: string): Promise<void> {
    const bridge = bridgeIdFor(runId);
    await this.bridgeCommand(bridge, 'addChannel', channelId);
    await tolerating([404, 409], this.client.request({ method: 'DELETE', path: `/ari/bridges/${bridge}/moh` }));
    await this.client.hangup(mediaChannelIdFor(runId));
  }

  /** No answer (or given up): the destination hung up, music off, the agent's media channel back in. */
  async restore(runId: number, channelId: string): Promise<void> {
    const bridge = bridgeIdFor(runId);
    await this.client.hangup(channelId);
    await tolerating([404, 409], this.client.request({ method: 'DELETE', path: `/ari/bridges/${bridge}/moh` }));
    // 404: the call is over (no bridge); 400: the media channel is gone.
    await tolerating([400, 404], this.bridgeCommand(bridge, 'addChannel', mediaChannelIdFor(runId)));
  }

  /** The destination channel's state: `answered` once up, null when Asterisk no longer knows it. */
  async status(channelId: string): Promise<TransferStatus | null> {
    const channel = await this.client.channelStatus(channelId);
    if (!channel) return null;
    if (channel.status === 'answered') return 'answered';
    return channel.status === 'busy' ? 'busy' : 'ringing';
  }

  private bridgeCommand(bridge: string, command: 'addChannel' | 'removeChannel', channel: string) {
    const query = new URLSearchParams({ channel });
    return this.client.request({ method: 'POST', path: `/ari/bridges/${bridge}/${command}?${query.toString()}` });
  }
}
