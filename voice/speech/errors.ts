export type SpeechErrorKind = 'auth' | 'connection' | 'protocol' | 'configuration';

/** A speech provider refused or broke a stream; `kind` `auth` means the API key was rejected. */
export class SpeechProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: SpeechErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.name = 'SpeechProviderError';
  }
}

/** HTTP statuses (handshake or request) and WebSocket close codes that mean "bad credentials". */
export const isAuthStatus = (status: number): boolean => status === 401 || status === 403 || status === 1008;
