import type { DataSource } from 'typeorm';
import { ProviderError, type StatusEvent, type TelephonyProvider } from '../../provider';
import { createWebCalls, type WebCallRow } from './web-calls';

const NOT_A_CARRIER = 'Web calls come from a browser: there is nothing to dial, answer or configure';

/** The status of a web call: over once ended, `no-answer` when nobody joined in time, else in progress. */
export function webCallStatus(call: WebCallRow, now: Date): StatusEvent['status'] {
  if (call.endedAt) return call.startedAt ? 'completed' : 'no-answer';
  if (!call.startedAt && now.getTime() >= new Date(call.joinBy).getTime()) return 'no-answer';
  return 'answered';
}

/**
 * The provider of calls from a browser (`POST /workflow/{workflow_id}/web-call`): the call is ours
 * from end to end, so its status is what `web_calls` says and hanging up marks it over (the API
 * process holding its stream closes the browser's connection when the conversation ends).
 */
export function createWebProvider(dataSource: DataSource, now: () => Date = () => new Date()): TelephonyProvider {
  const calls = createWebCalls(dataSource);
  const refuse = (): never => {
    throw new ProviderError(NOT_A_CARRIER, 400);
  };
  return {
    originate: () => Promise.reject(new ProviderError(NOT_A_CARRIER, 400)),

    async getCallStatus(providerCallId) {
      const call = await calls.byCallId(providerCallId);
      if (!call) return null;
      const status = webCallStatus(call, now());
      return {
        status,
        providerCallId,
        ...(status === 'completed' ? { durationSeconds: call.durationSeconds ?? 0 } : {}),
        raw: { web: true },
      };
    },

    async hangup(providerCallId) {
      const call = await calls.byCallId(providerCallId);
      if (!call) throw new ProviderError('No such web call', 404);
      await calls.ended(call.runId);
    },

    parseStatusWebhook: refuse,
    verifyWebhook: () => false,
    configureInbound: () => Promise.resolve({ ok: false, message: NOT_A_CARRIER }),
    readiness: () => ({ ready: true }),
    answerCall: () => Promise.reject(new ProviderError(NOT_A_CARRIER, 400)),
    rejectCall: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
  };
}
