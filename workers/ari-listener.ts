import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { Run, TelephonyConfiguration } from '../entities';
import type { Logger } from '../platform/logger';
import { openCredentials } from '../telephony/credentials';
import type { ProviderContext, StatusEvent } from '../telephony/provider';
import { openAriEventStream, type AriEventStream } from '../telephony/providers/ari';
import { AriClient } from '../telephony/providers/ari/client';
import { ariConfigSchema, type AriConfig } from '../telephony/providers/ari/config';
import { ariEndpointPolicy } from '../telephony/providers/ari/endpoint';
import { AriMediaBridge, runIdOfMediaChannel } from '../telephony/providers/ari/media-bridge';
import type { Secrets } from '../telephony/secrets';
import { mediaTokenKey, signMediaToken } from '../voice/media-token';
import { signalCallStatus } from '../domain/calls/call-status-signal';

/** A channel entered our Stasis app without naming a run: an inbound call. */
export interface AriInboundCall {
  configuration: TelephonyConfiguration;
  channelId: string;
  /** The StasisStart event as Asterisk sent it (caller, dialplan, args). */
  event: Record<string, unknown>;
}

export interface AriListenerDeps {
  dataSource: DataSource;
  temporal: Client;
  secrets: Secrets;
  logger: Logger;
  /** `TELEPHONY_API_BASE_URL`: a mock Asterisk instead of each configuration's `ari_endpoint`. */
  apiBaseUrl?: string;
  /** `ALLOW_PRIVATE_ARI_ENDPOINTS`: endpoints may be private addresses. */
  allowPrivateEndpoints?: boolean;
  /** How often the ARI configurations are read again in full, whatever changed; default 30 s. */
  rescanMs?: number;
  /** How often a one-row query checks whether ARI configurations changed (then they are read again); default 2 s. */
  changeProbeMs?: number;
  /** First reconnect delay after a drop or a refused connection, doubled up to `maxReconnectMs`; default 1 s. */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** Inbound calls (StasisStart of a channel no run knows); without it they are logged and left alone. */
  onInboundCall?: (call: AriInboundCall) => Promise<void>;
}

/** `appArgs` of our originate: `run_id=<id>` (telephony/providers/ari/client.ts). */
const RUN_ID_ARG = /^run_id=(\d+)$/;

function runIdOfArgs(event: Record<string, unknown>): number | undefined {
  const args = Array.isArray(event.args) ? event.args : [];
  for (const arg of args) {
    const match = typeof arg === 'string' ? RUN_ID_ARG.exec(arg) : null;
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}

/** Changes to what the socket depends on (endpoint, user, password, app) reopen it. */
const fingerprintOf = (config: AriConfig): string =>
  createHash('sha256')
    .update(JSON.stringify([config.ari_endpoint, config.app_name, config.app_password, config.stasis_app_name]))
    .digest('hex');

/**
 * Asterisk reports calls only over its events WebSocket, so the worker process keeps one socket open
 * per ARI telephony configuration: configurations are read again every `rescanMs` (new ones
 * connect, changed ones reconnect, deleted ones close), a dropped or refused socket reconnects with
 * exponential backoff, and every status event is mapped to its run and signalled to the run's call
 * workflow. The workflow ignores repeats, so duplicates (several workers, reconnects) are harmless.
 * The same events bridge each answered call to the media endpoint (AriMediaBridge), whose ids are
 * the run's, so duplicates there create nothing twice either.
 */
export class AriListener {
  private readonly connections = new Map<number, AriConnection>();
  private timers: NodeJS.Timeout[] = [];
  /** Count and latest `updated_at` of the ARI configurations at the last scan. */
  private lastState = '';
  private scanning: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: AriListenerDeps) {}

  /** Connects to every ARI configuration now, then keeps the set current. */
  async start(): Promise<void> {
    await this.rescan();
    this.timers = [
      setInterval(() => void this.rescan(), this.deps.rescanMs ?? 30_000),
      setInterval(() => void this.rescanOnChange(), this.deps.changeProbeMs ?? 2000),
    ];
  }

  /** Reads the configurations again (also called by the timer); scans never overlap. */
  rescan(): Promise<void> {
    this.scanning = this.scanning
      .then(() => this.scan())
      .catch((error: unknown) => {
        this.deps.logger.error({ error: String(error) }, 'ARI configurations could not be read');
      });
    return this.scanning;
  }

  /** Open sockets, by configuration id (for tests and diagnostics). */
  connectedConfigurations(): number[] {
    return [...this.connections.entries()].filter(([, connection]) => connection.isOpen()).map(([id]) => id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    await this.scanning;
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }

  /** A configuration was added, changed or deleted since the last scan: scan now rather than at the next period. */
  private async rescanOnChange(): Promise<void> {
    try {
      if ((await this.configurationsState()) !== this.lastState) await this.rescan();
    } catch (error) {
      this.deps.logger.warn({ error: String(error) }, 'ARI configuration change check failed');
    }
  }

  private async configurationsState(): Promise<string> {
    const [row] = await this.deps.dataSource.query<{ n: number; at: Date | null }[]>(
      `SELECT count(*)::int AS n, max(updated_at) AS at FROM telephony_configurations WHERE provider = 'ari'`,
    );
    return `${row?.n ?? 0}@${row?.at?.toISOString() ?? ''}`;
  }

  private async scan(): Promise<void> {
    if (this.stopped) return;
    // Read before the rows: a change landing in between is seen by the next probe.
    this.lastState = await this.configurationsState();
    const rows = await this.deps.dataSource.getRepository(TelephonyConfiguration).findBy({ provider: 'ari' });
    const seen = new Set<number>();
    for (const row of rows) {
      const config = this.configOf(row);
      if (!config?.stasis_app_name) continue;
      seen.add(row.id);
      const fingerprint = fingerprintOf(config);
      const current = this.connections.get(row.id);
      if (current?.fingerprint === fingerprint) continue;
      current?.close();
      const connection = new AriConnection(row, config, fingerprint, this.deps);
      this.connections.set(row.id, connection);
      connection.open();
    }
    for (const [id, connection] of this.connections) {
      if (seen.has(id)) continue;
      connection.close();
      this.connections.delete(id);
    }
  }

  private configOf(row: TelephonyConfiguration): AriConfig | undefined {
    try {
      return ariConfigSchema.parse(openCredentials(row.credentials, this.deps.secrets));
    } catch (error) {
      this.deps.logger.warn({ configurationId: row.id, error: String(error) }, 'ARI configuration unusable: skipped');
      return undefined;
    }
  }
}

/** One configuration's events socket: reconnects until closed, handles its events in arrival order. */
class AriConnection {
  private stream: AriEventStream | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private closed = false;
  /** Events are handled one after another: a call's signals reach its workflow in Asterisk's order. */
  private queue: Promise<void> = Promise.resolve();
  /** Channels already tied to a run (by StasisStart args or the run's provider_call_id). */
  private readonly runOfChannel = new Map<string, number>();
  private readonly log: Logger;
  private readonly context: ProviderContext;
  private readonly media: AriMediaBridge;
  private readonly mediaKey: Buffer;

  constructor(
    private readonly row: TelephonyConfiguration,
    private readonly config: AriConfig,
    readonly fingerprint: string,
    private readonly deps: AriListenerDeps,
  ) {
    this.delayMs = deps.reconnectMs ?? 1000;
    this.log = deps.logger.child({ configurationId: row.id, app: config.stasis_app_name });
    this.context = {
      apiBaseUrl: deps.apiBaseUrl,
      endpointPolicy: ariEndpointPolicy(deps.allowPrivateEndpoints ?? false),
    };
    this.media = new AriMediaBridge(new AriClient(config, this.context), config);
    this.mediaKey = mediaTokenKey(deps.secrets);
  }

  isOpen(): boolean {
    return this.stream !== undefined;
  }

  open(): void {
    if (this.closed) return;
    const context = this.context;
    openAriEventStream(
      this.config,
      {
        onStatus: (event) => {
          // A closed connection (configuration changed or deleted, worker stopping) acts on nothing more.
          if (this.closed) return;
          this.enqueue(
            () => this.handle(event),
            (error) => this.log.error({ channel: event.providerCallId, error }, 'ARI event not delivered'),
          );
        },
        onClose: (code) => {
          this.stream = undefined;
          if (this.closed) return;
          this.log.warn({ code }, 'ARI events WebSocket closed: reconnecting');
          this.retry();
        },
      },
      context,
    ).then(
      (stream) => {
        if (this.closed) {
          stream.close();
          return;
        }
        this.stream = stream;
        this.delayMs = this.deps.reconnectMs ?? 1000;
        this.log.info('ARI events WebSocket open');
        this.enqueue(
          () => this.tearDownStranded(),
          (error) => this.log.warn({ error }, 'stranded ARI media bridges could not be looked up'),
        );
      },
      (error: unknown) => {
        this.log.warn({ error: String(error), retryInMs: this.delayMs }, 'ARI events WebSocket could not be opened');
        this.retry();
      },
    );
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stream?.close();
    this.stream = undefined;
  }

  /** Events (and the stranded-bridge check) run one after another, in arrival order. */
  private enqueue(task: () => Promise<void>, onError: (error: string) => void): void {
    this.queue = this.queue.then(task).catch((error: unknown) => onError(String(error)));
  }

  private retry(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.deps.maxReconnectMs ?? 30_000);
  }

  private async handle(event: StatusEvent): Promise<void> {
    const channelId = event.providerCallId;
    if (!channelId) return;
    const mediaRunId = runIdOfMediaChannel(channelId);
    // Our external media channels enter the Stasis app too: they are neither inbound calls nor call events.
    if (mediaRunId !== undefined) return this.mediaChannelEvent(mediaRunId, event);
    let run = await this.runOf(channelId, event.raw);
    if (!run && event.raw.type === 'StasisStart') {
      // An inbound call: the handler creates its run (provider_call_id = the channel), which then gets this event too.
      await this.inbound(channelId, event.raw);
      run = await this.runOf(channelId, event.raw);
    }
    if (!run) {
      this.log.debug({ channel: channelId, type: event.raw.type }, 'ARI event for no known run: ignored');
      return;
    }
    if (event.raw.type === 'ChannelDestroyed') this.runOfChannel.delete(channelId);
    // Before the signal, so a Temporal outage does not leave a call without audio or a bridge behind.
    await this.bridgeMedia(run, channelId, event);
    if (run.isCompleted) return;
    const signalled = await signalCallStatus(this.deps.temporal, run, {
      status: event.status,
      providerCallId: channelId,
      durationSeconds: event.durationSeconds,
    });
    if (!signalled) this.log.info({ runId: run.id }, 'ARI event for a closed call workflow: ignored');
  }

  /**
   * An answered call channel entered Stasis: bridge it to the media endpoint with a fresh token. The
   * call channel is gone: tear the bridge down. Failures are logged; the call goes on without audio.
   */
  private async bridgeMedia(run: Run, channelId: string, event: StatusEvent): Promise<void> {
    const context = { runId: run.id, channel: channelId };
    if (event.raw.type === 'StasisStart' && !run.isCompleted) {
      const token = signMediaToken(this.mediaKey, { provider: 'ari', runId: run.id });
      try {
        const outcome = await this.media.connect(run.id, channelId, token);
        this.log.info({ ...context, outcome }, 'ARI call bridged; external media channel dialing the media endpoint');
      } catch (error) {
        this.log.error({ ...context, error: String(error) }, 'ARI call could not be bridged to the media endpoint');
      }
    } else if (event.raw.type === 'ChannelDestroyed' && event.status === 'completed') {
      // Only answered calls were bridged; a call that never answered has nothing to tear down.
      await this.tearDown(run.id, 'the call hung up');
    }
  }

  /** Events of an external media channel: joining the bridge once connected, or why it ended. */
  private async mediaChannelEvent(runId: number, event: StatusEvent): Promise<void> {
    const context = { runId, channel: event.providerCallId };
    if (event.raw.type === 'StasisStart') {
      try {
        const outcome = await this.media.join(runId);
        this.log.info({ ...context, outcome }, 'ARI external media channel connected');
      } catch (error) {
        this.log.error({ ...context, error: String(error) }, 'ARI external media channel could not join its bridge');
      }
    } else if (event.raw.type === 'ChannelDestroyed') {
      // Never answered: Asterisk could not reach the media endpoint, or the endpoint refused it (a bad token).
      const connected = event.status === 'completed';
      const cause = event.raw.cause;
      if (connected) this.log.info(context, 'ARI external media channel ended');
      else this.log.warn({ ...context, cause }, 'ARI external media channel never connected to the media endpoint');
    }
  }

  /** External media channels whose call ended while no listener ran (docs/guides/asterisk.md). */
  private async tearDownStranded(): Promise<void> {
    for (const runId of await this.media.strandedRuns()) await this.tearDown(runId, 'its call ended while unobserved');
  }

  private async tearDown(runId: number, reason: string): Promise<void> {
    try {
      await this.media.tearDown(runId);
      this.log.info({ runId, reason }, 'ARI media bridge torn down');
    } catch (error) {
      this.log.error({ runId, reason, error: String(error) }, 'ARI media bridge could not be torn down');
    }
  }

  /** The run of a channel: remembered, else the run that stored it as its call id, else StasisStart's `run_id` arg. */
  private async runOf(channelId: string, raw: Record<string, unknown>): Promise<Run | null> {
    const runs = this.deps.dataSource.getRepository(Run);
    const mine = { telephonyConfigurationId: this.row.id };
    const known = this.runOfChannel.get(channelId);
    const named = raw.type === 'StasisStart' ? runIdOfArgs(raw) : undefined;
    const run =
      (known === undefined ? null : await runs.findOneBy({ id: known, ...mine })) ??
      (await runs.findOneBy({ providerCallId: channelId, ...mine })) ??
      (named === undefined ? null : await runs.findOneBy({ id: named, ...mine }));
    if (run) this.runOfChannel.set(channelId, run.id);
    return run;
  }

  private async inbound(channelId: string, event: Record<string, unknown>): Promise<void> {
    if (!this.deps.onInboundCall) {
      this.log.warn({ channel: channelId }, 'inbound ARI call: no inbound handler in this worker, left alone');
      return;
    }
    await this.deps.onInboundCall({ configuration: this.row, channelId, event });
  }
}
