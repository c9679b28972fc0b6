import WebSocket from 'ws';
import { SpeechProviderError, isAuthStatus } from './errors';

/** Opens a provider socket; a refused handshake (401/403) becomes a SpeechProviderError of kind `auth`. */
export function openProviderSocket(
  provider: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, handshakeTimeout: 10_000 });
    socket.once('open', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      socket.terminate();
      const kind = isAuthStatus(status) ? 'auth' : 'connection';
      reject(new SpeechProviderError(provider, kind, `handshake refused with HTTP ${status}`));
    });
    socket.once('error', (error) => {
      reject(new SpeechProviderError(provider, 'connection', error.message, { cause: error }));
    });
  });
}

/** Maps a close after open: provider auth closes (1008, 4001, 4003) and other abnormal codes to errors. */
export function closeError(provider: string, code: number, reason: string): SpeechProviderError | null {
  if (code === 1000 || code === 1005) return null;
  const kind = isAuthStatus(code) || code === 4001 || code === 4003 ? 'auth' : 'protocol';
  return new SpeechProviderError(provider, kind, `socket closed with code ${code}${reason ? `: ${reason}` : ''}`);
}
