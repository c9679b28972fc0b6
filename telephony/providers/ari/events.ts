import WebSocket from 'ws';
import { AddressRefusedError } from '../../../platform/address-guard';
import { basicAuth } from '../../http';
import { ProviderError, type ProviderContext, type StatusEvent } from '../../provider';
import type { AriConfig } from './config';
import { ARI_MAX_EVENT_BYTES, ariOrigin, ariSocketLookup } from './endpoint';
import { AriCallTracker, parseAriEvent } from './status';

export interface AriEventHandlers {
  onStatus(event: StatusEvent): void;
  /** The socket closed (Asterisk restarted, network loss); the owner decides when to reconnect. */
  onClose(code: number): void;
}

export interface AriEventStream {
  close(): void;
}

/**
 * Asterisk reports call progress only over its events WebSocket (there are no HTTP status webhooks). This
 * subscribes to the configuration's Stasis app and turns each status-bearing event into a StatusEvent; other
 * events (StasisEnd, hang-up requests, bridges) are skipped. Resolves once Asterisk accepts the connection.
 */
export async function openAriEventStream(
  config: AriConfig,
  handlers: AriEventHandlers,
  context: ProviderContext = {},
): Promise<AriEventStream> {
  if (!config.stasis_app_name) throw new ProviderError('ARI stasis_app_name is not set');
  const url = new URL(`${ariOrigin(config, context).replace(/^http/, 'ws')}/ari/events`);
  url.searchParams.set('app', config.stasis_app_name);
  url.searchParams.set('subscribeAll', 'false');
  let lookup;
  try {
    lookup = await ariSocketLookup(url, context);
  } catch (error) {
    if (error instanceof AddressRefusedError) throw new ProviderError(`ARI endpoint refused: ${error.message}`);
    throw error;
  }
  const socket = new WebSocket(url, {
    headers: { authorization: basicAuth(config.app_name, config.app_password) },
    handshakeTimeout: context.timeoutMs ?? 10_000,
    // A tenant's server must not make the worker buffer huge frames; redirects were never checked.
    maxPayload: ARI_MAX_EVENT_BYTES,
    followRedirects: false,
    ...(lookup ? { lookup } : {}),
  });
  const tracker = new AriCallTracker();

  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      reject(new ProviderError(`Asterisk refused the events WebSocket (${status})`, status, status >= 500));
      socket.terminate();
    });
    socket.on('error', () =>
      reject(new ProviderError('Asterisk events WebSocket could not be opened', undefined, true)),
    );
    socket.once('open', () => {
      socket.on('close', (code) => handlers.onClose(code));
      resolve({ close: () => socket.close() });
    });
    socket.on('message', (data, isBinary) => {
      // ARI events are text frames; with the default binaryType each arrives as one Buffer.
      if (isBinary || !Buffer.isBuffer(data)) return;
      const status = statusOf(tracker, data.toString('utf8'));
      if (status) handlers.onStatus(status);
    });
  });
}

function statusOf(tracker: AriCallTracker, text: string): StatusEvent | undefined {
  try {
    const { event, raw } = parseAriEvent(text);
    return tracker.toStatusEvent(event, raw);
  } catch (error) {
    if (error instanceof ProviderError) return undefined;
    throw error;
  }
}
