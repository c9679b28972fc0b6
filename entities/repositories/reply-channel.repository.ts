import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createNotificationRepository, type ChannelListener } from './notification.repository';

export type { ChannelListener };

/**
 * PostgreSQL NOTIFY and LISTEN on a reply stream's channel: the transport of a text chat reply
 * relayed from the worker that runs the turn to the API process that holds the request.
 */
export function createReplyChannelRepository(dataSource: DataSource) {
  const notifications = createNotificationRepository(dataSource);
  return {
    notify: (channel: string, payload: string) => notifications.notify(channel, payload),

    /**
     * LISTENs on the channel over a connection of its own (closed with the listener). Resolves once
     * listening, so a notification sent after it is heard. A lost connection only stops the hearing.
     */
    async listen(channel: string, onPayload: (payload: string | undefined) => void): Promise<ChannelListener> {
      const { options } = dataSource;
      const url = 'url' in options ? options.url : undefined;
      if (!url) throw new Error('The reply stream connects as the DataSource does: by its url');
      const client = new Client({ connectionString: url, application_name: 'switchboard-reply-stream' });
      client.on('notification', ({ channel: heard, payload }) => {
        if (heard === channel) onPayload(payload);
      });
      client.on('error', () => undefined);
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await client.end().catch(() => undefined);
      };
      try {
        await client.connect();
        await client.query(`LISTEN "${channel}"`);
      } catch (error) {
        await close();
        throw error;
      }
      return { close };
    },
  };
}

export type ReplyChannelRepository = ReturnType<typeof createReplyChannelRepository>;
