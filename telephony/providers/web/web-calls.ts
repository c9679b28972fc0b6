import type { DataSource } from 'typeorm';
import {
  createWebCallRepository,
  type WebCallRepository,
  type WebCallRow,
} from '../../../entities/repositories/web-call.repository';

export type { WebCallRow };

/** The provider name of calls from a browser (a run's `mode`). */
export const WEB_PROVIDER = 'web';

/** How long a new web call may wait for its browser: its token is worth nothing after this. */
export const WEB_CALL_JOIN_SECONDS = 30;

/**
 * The web calls' rows (`web_calls`): created with their run (domain/calls/start-web-call.ts), marked
 * started and ended by the API process holding the call's stream, read by the worker's look-ups.
 */
export type WebCalls = Pick<WebCallRepository, 'started' | 'ended' | 'byCallId'>;

export const createWebCalls = (dataSource: DataSource): WebCalls => createWebCallRepository(dataSource);
