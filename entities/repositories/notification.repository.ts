import { Client } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from '../../platform/logger';
import { repositoryOver } from './repository';

/** PostgreSQL NOTIFY: a message to every process that listens on the channel. */
export function notificationStatements(manager: EntityManager) {
  return {
    async notify(channel: string, payload: string): Promise<void> {
      await manager.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
  };
}

export const createNotificationRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, notificationStatements);

export interface ChannelListener {
  close(): Promise<void>;
}

const RECONNECT_MS = 1_000;

/**
 * LISTENs on `channel` over one connection of its own (named `applicationName`, held for the
 * process's life, never for a client) and hands each payload to `onPayload`. A lost connection is
 * opened again after a second; a message sent meanwhile is lost.
 */
export async function listenOnChannel(
  databaseUrl: string,
  {
    channel,
    applicationName,
    label,
  }: {
    channel: string;
    applicationName: string;
    /** What the connection carries, in its log lines. */
    label: string;
  },
  onPayload: (payload: string | undefined) => void,
  log: Logger,
): Promise<ChannelListener> {
  let client: Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: databaseUrl, application_name: applicationName });
    next.on('notification', (message) => {
      if (message.channel === channel) onPayload(message.payload);
    });
    const lost = (error?: Error) => {
      if (closed || client !== next) return;
      client = null;
      next.removeAllListeners('end');
      void next.end().catch(() => undefined);
      log.warn({ err: error }, `${label} connection lost; reconnecting`);
      retry = setTimeout(reconnect, RECONNECT_MS);
    };
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    await next.connect();
    await next.query(`LISTEN ${channel}`);
  };
  const reconnect = () => {
    retry = null;
    connect().catch((error: unknown) => {
      log.warn({ err: error }, `${label} connection failed; trying again`);
      if (!closed && !retry) {
        client = null;
        retry = setTimeout(reconnect, RECONNECT_MS);
      }
    });
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
