import type { Logger } from '../../../platform/logger';
import type { ProviderContext, StatusEvent } from '../../provider';
import type { AriConfig } from './config';
import { openAriEventStream, type AriEventStream } from './events';

export interface AriConnectionHandlers {
  /** Each status event, one after another in arrival order. */
  onEvent: (event: StatusEvent) => Promise<void>;
  /** On every (re)opening, before any event of that socket: stranded media bridges are looked up. */
  onOpen: () => Promise<void>;
}

export interface AriConnectionOptions {
  /** First reconnect delay after a drop or a refused connection, doubled up to `maxReconnectMs`; default 1 s. */
  reconnectMs?: number;
  maxReconnectMs?: number;
}

/**
 * One configuration's events socket: reconnects with exponential backoff until closed, and hands
 * its events over one after another, so a call's signals reach its workflow in Asterisk's order.
 */
export class AriConnection {
  private stream: AriEventStream | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private closed = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: AriConfig,
    private readonly context: ProviderContext,
    private readonly handlers: AriConnectionHandlers,
    private readonly log: Logger,
    private readonly options: AriConnectionOptions = {},
  ) {
    this.delayMs = options.reconnectMs ?? 1000;
  }

  isOpen(): boolean {
    return this.stream !== undefined;
  }

  open(): void {
    if (this.closed) return;
    openAriEventStream(
      this.config,
      {
        onStatus: (event) => {
          // A closed connection (configuration changed or deleted, worker stopping) acts on nothing more.
          if (this.closed) return;
          this.enqueue(
            () => this.handlers.onEvent(event),
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
      this.context,
    ).then(
      (stream) => {
        if (this.closed) {
          stream.close();
          return;
        }
        this.stream = stream;
        this.delayMs = this.options.reconnectMs ?? 1000;
        this.log.info('ARI events WebSocket open');
        this.enqueue(
          () => this.handlers.onOpen(),
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

  /** Events (and the work on opening) run one after another, in arrival order. */
  private enqueue(task: () => Promise<void>, onError: (error: string) => void): void {
    this.queue = this.queue.then(task).catch((error: unknown) => onError(String(error)));
  }

  private retry(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.options.maxReconnectMs ?? 30_000);
  }
}
