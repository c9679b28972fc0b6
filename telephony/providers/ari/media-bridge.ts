import { z } from 'zod';
import { ProviderError } from '../../provider';
import type { AriClient } from './client';
import { DEFAULT_WS_CLIENT_NAME, type AriConfig } from './config';

/**
 * The audio format Asterisk streams to the media endpoint. µ-law 8 kHz is what a PSTN call leg
 * usually speaks already (no transcoding in the bridge); the endpoint also serves alaw, slin and slin16.
 */
export const EXTERNAL_MEDIA_FORMAT = 'ulaw';

/**
 * Ids derived from the run: a repeated StasisStart (another worker replica, a restarted listener)
 * names the same bridge and external media channel, which Asterisk reuses or refuses (409) instead
 * of creating a second pair for one call.
 */
export const bridgeIdFor = (runId: number): string => `sb-bridge-${runId}`;
export const mediaChannelIdFor = (runId: number): string => `sb-media-${runId}`;

const MEDIA_CHANNEL_ID = /^sb-media-(\d{1,15})$/;
const BRIDGE_ID = /^sb-bridge-(\d{1,15})$/;

/** The run of one of our external media channels, or undefined for any other channel. */
export function runIdOfMediaChannel(channelId: string): number | undefined {
  const match = MEDIA_CHANNEL_ID.exec(channelId);
  return match?.[1] ? Number(match[1]) : undefined;
}

/**
 * `POST /ari/channels/externalMedia` in chan_websocket client mode (provider-wire-formats §7.4):
 * Asterisk dials the websocket_client.conf connection named by `external_host`, whose URI is our
 * `…/telephony/ari/media` endpoint, and appends the `v(…)` parameters of `transport_data` to it as
 * a query (commas become `&`). Server mode would need us to connect to Asterisk's HTTP server
 * instead, and the media endpoint only accepts connections. The token's characters (digits, `.`,
 * base64url) are valid in a URL as they are, which chan_websocket requires of `v(…)` values.
 */
export function externalMediaQuery(config: AriConfig, runId: number, mediaToken: string): URLSearchParams {
  if (!config.stasis_app_name) throw new ProviderError('ARI stasis_app_name is not set');
  return new URLSearchParams({
    channelId: mediaChannelIdFor(runId),
    app: config.stasis_app_name,
    external_host: config.ws_client_name || DEFAULT_WS_CLIENT_NAME,
    transport: 'websocket',
    encapsulation: 'none',
    connection_type: 'client',
    format: EXTERNAL_MEDIA_FORMAT,
    direction: 'both',
    transport_data: `v(run_id=${runId},token=${mediaToken})`,
  });
}

const bridgesSchema = z.array(z.object({ id: z.string(), channels: z.array(z.string()).default([]) }));
const channelsSchema = z.array(z.object({ id: z.string() }));

const statusOf = (error: unknown): number | undefined => (error instanceof ProviderError ? error.status : undefined);

/**
 * Joins a call channel and the media endpoint in one mixing bridge. Asterisk adds a channel to a
 * bridge only once it is in our Stasis app, so this happens in two steps: when the call channel
 * enters Stasis (`connect`: bridge, call channel, external media channel), and when the external
 * media channel does, i.e. once its WebSocket to the media endpoint is up (`join`).
 */
export class AriMediaBridge {
  constructor(
    private readonly client: AriClient,
    private readonly config: AriConfig,
  ) {}

  /**
   * Creates the run's bridge (or finds it: Asterisk answers an existing id with 200 when no `type`
   * is given, and with 500 when one is; the default type is `mixing`), adds the call channel, and
   * creates the external media channel. `existing` when that channel was already there (a repeat).
   */
  async connect(runId: number, callChannelId: string, mediaToken: string): Promise<'created' | 'existing'> {
    const bridgeId = bridgeIdFor(runId);
    await this.client.request({ method: 'POST', path: `/ari/bridges/${bridgeId}` });
    await this.addChannel(bridgeId, callChannelId);
    const query = externalMediaQuery(this.config, runId, mediaToken);
    try {
      await this.client.request({ method: 'POST', path: `/ari/channels/externalMedia?${query.toString()}` });
    } catch (error) {
      if (statusOf(error) === 409) return 'existing';
      throw error;
    }
    return 'created';
  }

  /**
   * Adds the external media channel to its run's bridge. `orphaned` when the bridge is gone (the
   * call ended while the channel was connecting): the channel is hung up rather than left open.
   */
  async join(runId: number): Promise<'joined' | 'orphaned'> {
    try {
      await this.addChannel(bridgeIdFor(runId), mediaChannelIdFor(runId));
      return 'joined';
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await this.client.hangup(mediaChannelIdFor(runId));
      return 'orphaned';
    }
  }

  /** Hangs up the external media channel and destroys the bridge; either may already be gone. */
  async tearDown(runId: number): Promise<void> {
    const results = await Promise.allSettled([
      this.client.hangup(mediaChannelIdFor(runId)),
      this.client.request({ method: 'DELETE', path: `/ari/bridges/${bridgeIdFor(runId)}` }).catch((error: unknown) => {
        if (statusOf(error) !== 404) throw error;
      }),
    ]);
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /**
   * Runs whose call ended while nobody listened (every listener down): an external media channel
   * of ours whose bridge is gone or holds no call channel any more. A bridge always gets its call
   * channel before the external media channel is created, so a live call never matches.
   */
  async strandedRuns(): Promise<number[]> {
    const [bridgesBody, channelsBody] = await Promise.all([
      this.client.request({ method: 'GET', path: '/ari/bridges' }),
      this.client.request({ method: 'GET', path: '/ari/channels' }),
    ]);
    const bridges = bridgesSchema.safeParse(bridgesBody);
    const channels = channelsSchema.safeParse(channelsBody);
    if (!bridges.success || !channels.success) {
      throw new ProviderError('Asterisk answered the bridge or channel list with an unexpected body');
    }
    const members = new Map(
      bridges.data.filter((bridge) => BRIDGE_ID.test(bridge.id)).map((bridge) => [bridge.id, bridge.channels]),
    );
    const stranded: number[] = [];
    for (const { id } of channels.data) {
      const runId = runIdOfMediaChannel(id);
      if (runId === undefined) continue;
      const inBridge = members.get(bridgeIdFor(runId)) ?? [];
      if (!inBridge.some((channel) => channel !== id)) stranded.push(runId);
    }
    return stranded;
  }

  private async addChannel(bridgeId: string, channelId: string): Promise<void> {
    const query = new URLSearchParams({ channel: channelId });
    await this.client.request({ method: 'POST', path: `/ari/bridges/${bridgeId}/addChannel?${query.toString()}` });
  }
}
