import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { TelephonyConfiguration } from '../../../entities';
import {
  createCallTargetRepository,
  type CallTargetRepository,
} from '../../../entities/repositories/call-target.repository';
import type { Logger } from '../../../platform/logger';
import { mediaTokenKey } from '../../../voice/media-token';
import { openCredentials } from '../../credentials';
import type { ProviderContext } from '../../provider';
import type { Secrets } from '../../secrets';
import { AriCallEvents, type AriCallEventsDeps } from './call-events';
import { AriClient } from './client';
import { ariConfigSchema, type AriConfig } from './config';
import { AriConnection, type AriConnectionOptions } from './connection';
import { ariEndpointPolicy } from './endpoint';
import { AriMediaBridge } from './media-bridge';
import { AriMediaEvents } from './media-events';
import { AriTransferBridge } from './transfer-bridge';
import { AriTransferEvents } from './transfer-events';

export type { AriInboundCall, SignalCallStatus, SignalTransferStatus } from './call-events';

export interface AriListenerDeps extends AriCallEventsDeps, AriConnectionOptions {
  dataSource: DataSource;
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
}

/** Changes to what the socket depends on (endpoint, user, password, app) reopen it. */
const fingerprintOf = (config: AriConfig): string =>
  createHash('sha256')
    .update(JSON.stringify([config.ari_endpoint, config.app_name, config.app_password, config.stasis_app_name]))
    .digest('hex');

interface OpenConfiguration {
  fingerprint: string;
  connection: AriConnection;
}

/**
 * Asterisk reports calls only over its events WebSocket, so the worker process keeps one socket open
 * per ARI telephony configuration (AriConnection): configurations are read again every `rescanMs`
 * and whenever a cheap probe sees them change (new ones connect, changed ones reconnect, deleted
 * ones close). Each socket's events go to that configuration's AriCallEvents.
 */
export class AriListener {
  private readonly connections = new Map<number, OpenConfiguration>();
  private timers: NodeJS.Timeout[] = [];
  /** Count and latest `updated_at` of the ARI configurations at the last scan. */
  private lastState = '';
  private scanning: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly configurations: CallTargetRepository;

  constructor(private readonly deps: AriListenerDeps) {
    this.configurations = createCallTargetRepository(deps.dataSource);
  }

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
    return [...this.connections.entries()].filter(([, open]) => open.connection.isOpen()).map(([id]) => id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    await this.scanning;
    for (const { connection } of this.connections.values()) connection.close();
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
    const row = await this.configurations.ariConfigurationsState();
    return `${row?.n ?? 0}@${row?.at?.toISOString() ?? ''}`;
  }

  private async scan(): Promise<void> {
    if (this.stopped) return;
    // Read before the rows: a change landing in between is seen by the next probe.
    this.lastState = await this.configurationsState();
    const rows = await this.configurations.ariConfigurations();
    const seen = new Set<number>();
    for (const row of rows) {
      const config = this.configOf(row);
      if (!config?.stasis_app_name) continue;
      seen.add(row.id);
      const fingerprint = fingerprintOf(config);
      const current = this.connections.get(row.id);
      if (current?.fingerprint === fingerprint) continue;
      current?.connection.close();
      const connection = this.connect(row, config);
      this.connections.set(row.id, { fingerprint, connection });
      connection.open();
    }
    for (const [id, { connection }] of this.connections) {
      if (seen.has(id)) continue;
      connection.close();
      this.connections.delete(id);
    }
  }

  /** A configuration's socket, its events handled by its own AriCallEvents and media bridge. */
  private connect(row: TelephonyConfiguration, config: AriConfig): AriConnection {
    const log = this.deps.logger.child({ configurationId: row.id, app: config.stasis_app_name });
    const context: ProviderContext = {
      apiBaseUrl: this.deps.apiBaseUrl,
      endpointPolicy: ariEndpointPolicy(this.deps.allowPrivateEndpoints ?? false),
    };
    const client = new AriClient(config, context);
    const media = new AriMediaEvents(new AriMediaBridge(client, config), log);
    const transfers = new AriTransferEvents(new AriTransferBridge(client, config), client, log);
    const events = new AriCallEvents(row, media, transfers, mediaTokenKey(this.deps.secrets), log, this.deps);
    return new AriConnection(
      config,
      context,
      { onEvent: (event) => events.handle(event), onOpen: () => media.tearDownStranded() },
      log,
      this.deps,
    );
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
