import {
  guardedRequest,
  OutboundNetworkError,
  OutboundRefusedError,
  type OutboundAnswer,
} from '../../platform/outbound-http';
import type { ToolRunnerDeps } from '../tools/tool-runner';

/**
 * Pre-call fetch: before a call's conversation starts (before the dial of an outbound call), the
 * start node's `pre_call_fetch_url` is asked about the call, and the JSON object it answers is
 * merged into the run's `initial_context`, so prompts and tools can use it. It goes through the
 * outbound guard with the node's credential, an `Idempotency-Key` and the organization's signature,
 * like an HTTP tool. Network errors, timeouts, 429 and 5xx answers are tried again within a bounded
 * time; when it fails the call goes on without it, and the run's `logs.pre_call_fetch` says why.
 */

export type PreCallFetchMode = 'disabled' | 'always' | 'inbound' | 'outbound';

/** What the start node says about pre-call fetch. */
export interface PreCallFetchSettings {
  mode: PreCallFetchMode;
  url?: string;
  credentialUuid?: string;
}

/** One attempt's longest wait for a complete answer. */
export const PRE_CALL_FETCH_ATTEMPT_MS = 5_000;
/** Attempts at most; the next one is not started past PRE_CALL_FETCH_BUDGET_MS. */
export const PRE_CALL_FETCH_ATTEMPTS = 3;
/** The whole fetch, retries included, ends within this. */
export const PRE_CALL_FETCH_BUDGET_MS = 15_000;
/** Waits before the second and third attempts. */
const BACKOFF_MS = [1_000, 2_000];
/** The most of an answer read; a longer one is refused. */
export const PRE_CALL_FETCH_MAX_ANSWER_BYTES = 64 * 1024;
const MAX_REDIRECTS = 3;

/** Keys Switchboard sets on every run: they describe the call, and an answer does not change them. */
export const CALL_CONTEXT_KEYS = ['called_number', 'caller_number', 'direction', 'provider'] as const;

/** What the run keeps of a fetch (`logs.pre_call_fetch`); never any of the credential or the answer's values. */
export type PreCallFetchLog =
  | {
      status: 'ok';
      url: string;
      status_code: number;
      attempts: number;
      duration_ms: number;
      /** The keys of the answer merged into `initial_context`. */
      merged_keys: string[];
      at: string;
    }
  | {
      status: 'failed';
      url: string;
      status_code?: number;
      attempts: number;
      duration_ms: number;
      error: string;
      at: string;
    };

export interface PreCallFetchOutcome {
  log: PreCallFetchLog;
  /** The values to merge into `initial_context` (empty when it failed). */
  context: Record<string, unknown>;
}

/** The start node's pre-call fetch settings, read leniently from a stored graph. */
export function preCallFetchSettings(definition: Record<string, unknown>): PreCallFetchSettings {
  const nodes = Array.isArray(definition.nodes) ? (definition.nodes as { type?: unknown; data?: unknown }[]) : [];
  const data = (nodes.find((node) => node.type === 'startCall')?.data ?? {}) as Record<string, unknown>;
  const mode = data.pre_call_fetch_mode;
  return {
    mode: mode === 'always' || mode === 'inbound' || mode === 'outbound' ? mode : 'disabled',
    ...(typeof data.pre_call_fetch_url === 'string' && data.pre_call_fetch_url ? { url: data.pre_call_fetch_url } : {}),
    ...(typeof data.pre_call_fetch_credential_uuid === 'string' && data.pre_call_fetch_credential_uuid
      ? { credentialUuid: data.pre_call_fetch_credential_uuid }
      : {}),
  };
}

/** Whether a call in this direction fetches (a mode without a URL never does). */
export const fetchesFor = (settings: PreCallFetchSettings, direction: 'inbound' | 'outbound'): boolean =>
  settings.url !== undefined && (settings.mode === 'always' || settings.mode === direction);

/** The `Idempotency-Key` (and signature id) of a run's pre-call fetch: the same on every attempt and retry. */
export const preCallFetchKey = (runId: number): string => `run-${runId}-pre-call-fetch`;

/** The call as the endpoint is told about it. */
export interface PreCallFetchCall {
  runId: number;
  organizationId: number;
  direction: 'inbound' | 'outbound';
  calledNumber: string | null;
  callerNumber: string | null;
  initialContext: Record<string, unknown>;
}

class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

/** The answer's JSON object; an empty body is an empty object. */
function answeredObject(answer: OutboundAnswer): Record<string, unknown> {
  if (answer.truncated) {
    throw new AttemptFailed(`the answer is over ${PRE_CALL_FETCH_MAX_ANSWER_BYTES} bytes`, false, answer.status);
  }
  const text = answer.body.toString('utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AttemptFailed('the answer is not JSON', false, answer.status);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AttemptFailed('the answer is not a JSON object', false, answer.status);
  }
  return parsed as Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Fetches once, trying again on what may pass (network errors, timeouts, 429, 5xx) while the
 * budget allows. Never throws for the endpoint's failures: the outcome says what happened.
 */
export async function runPreCallFetch(
  deps: Pick<ToolRunnerDeps, 'policy' | 'credentialHeaders' | 'signatureHeaders' | 'send'>,
  settings: PreCallFetchSettings & { url: string },
  call: PreCallFetchCall,
  signal?: AbortSignal,
): Promise<PreCallFetchOutcome> {
  const started = Date.now();
  const at = new Date(started).toISOString();
  const id = preCallFetchKey(call.runId);
  const body = JSON.stringify({
    run_id: call.runId,
    direction: call.direction,
    called_number: call.calledNumber,
    caller_number: call.callerNumber,
    initial_context: call.initialContext,
  });
  const failed = (attempts: number, error: string, statusCode?: number): PreCallFetchOutcome => ({
    log: {
      status: 'failed',
      url: settings.url,
      ...(statusCode === undefined ? {} : { status_code: statusCode }),
      attempts,
      duration_ms: Date.now() - started,
      error,
      at,
    },
    context: {},
  });

  let credential: Record<string, string> = {};
  if (settings.credentialUuid) {
    try {
      credential = await deps.credentialHeaders(call.organizationId, settings.credentialUuid);
    } catch (error) {
      return failed(0, (error as Error).message);
    }
  }
  let attempts = 0;
  for (;;) {
    attempts += 1;
    try {
      let signature: Record<string, string> = {};
      try {
        signature = await deps.signatureHeaders(call.organizationId, { method: 'POST', url: settings.url, id, body });
      } catch (error) {
        // A URL that does not parse: the guard refuses it below with the reason.
        if (!(error instanceof TypeError)) throw error;
      }
      const remaining = PRE_CALL_FETCH_BUDGET_MS - (Date.now() - started);
      const answer = await (deps.send ?? guardedRequest)(
        {
          method: 'POST',
          url: settings.url,
          headers: { 'content-type': 'application/json', ...credential, 'Idempotency-Key': id, ...signature },
          body,
        },
        deps.policy,
        {
          timeoutMs: PRE_CALL_FETCH_ATTEMPT_MS,
          deadlineMs: Math.max(1, Math.min(PRE_CALL_FETCH_ATTEMPT_MS, remaining)),
          maxAnswerBytes: PRE_CALL_FETCH_MAX_ANSWER_BYTES,
          maxRedirects: MAX_REDIRECTS,
          privateHeaders: Object.keys(credential),
          signal,
        },
      );
      if (answer.status < 200 || answer.status > 299) {
        const retryable = answer.status === 429 || answer.status >= 500;
        throw new AttemptFailed(`the endpoint answered ${answer.status}`, retryable, answer.status);
      }
      const answered = answeredObject(answer);
      const context = Object.fromEntries(
        Object.entries(answered).filter(([key]) => !(CALL_CONTEXT_KEYS as readonly string[]).includes(key)),
      );
      return {
        log: {
          status: 'ok',
          url: settings.url,
          status_code: answer.status,
          attempts,
          duration_ms: Date.now() - started,
          merged_keys: Object.keys(context),
          at,
        },
        context,
      };
    } catch (error) {
      const failure =
        error instanceof AttemptFailed
          ? error
          : error instanceof OutboundRefusedError
            ? new AttemptFailed(`refused: ${error.message}`, false)
            : error instanceof OutboundNetworkError
              ? new AttemptFailed(error.message, true)
              : null;
      if (!failure) throw error;
      const wait = BACKOFF_MS[attempts - 1] ?? 0;
      const next = Date.now() - started + wait;
      const last = attempts >= PRE_CALL_FETCH_ATTEMPTS || next >= PRE_CALL_FETCH_BUDGET_MS || signal?.aborted;
      if (!failure.retryable || last) {
        return failed(attempts, failure.message, failure.statusCode);
      }
      await sleep(wait);
    }
  }
}
