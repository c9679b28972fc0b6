import { z } from 'zod';
import { callProvider, readBody, unlessNotFound, type ProviderRequest } from '../../http';
import {
  ProviderError,
  type OriginateRequest,
  type ProviderContext,
  type StatusEvent,
  type TelephonyProvider,
  type WebhookRequest,
} from '../../provider';
import { durationOf } from '../../status-fields';
import { formFields } from '../../webhook-signatures';
import { plivoRecordStatus, plivoStatus } from './statuses';

/** What differs between Plivo and Vobiz for placing, following and ending calls. */
export interface PlivoDialect {
  label: string;
  origin: string;
  /** `/v1/Account/{auth_id}` (Plivo) or `/api/v1/Account/{auth_id}` (Vobiz). */
  accountPath: string;
  authHeaders: Record<string, string>;
}

const Fired = z.object({ request_uuid: z.string().min(1).optional(), call_uuid: z.string().min(1).optional() });
const LiveCall = z.object({ call_status: z.string(), call_uuid: z.string().optional() });
const CallRecord = z.object({
  call_uuid: z.string().optional(),
  call_duration: z.coerce.number().nullish(),
  bill_duration: z.coerce.number().nullish(),
  hangup_cause_code: z.coerce.number().nullish(),
});

/** Numbers go to Plivo and Vobiz as digits with the country code and no `+`; SIP addresses as they are. */
export const withoutPlus = (address: string): string => address.replace(/^\+/, '');

/**
 * originate, getCallStatus, hangup and parseStatusWebhook, which Plivo and Vobiz share: the same
 * fields, callbacks and status values under different paths and authentication.
 */
export function plivoCompatibleCalls(
  dialect: PlivoDialect,
  context: ProviderContext,
): Pick<TelephonyProvider, 'originate' | 'getCallStatus' | 'hangup' | 'parseStatusWebhook'> {
  const call = (request: ProviderRequest) =>
    callProvider(dialect.label, dialect.origin, context, { ...request, headers: dialect.authHeaders });
  const callPath = (id: string, query = '') => `${dialect.accountPath}/Call/${encodeURIComponent(id)}/${query}`;

  return {
    // Neither API takes an idempotency key: before re-dialing, the call workflow asks
    // getCallStatus about the call id it already has.
    async originate(request: OriginateRequest) {
      if (!request.from) throw new ProviderError(`${dialect.label} needs a caller id (from number) to place a call`);
      const { body } = await call({
        method: 'POST',
        path: `${dialect.accountPath}/Call/`,
        json: {
          from: withoutPlus(request.from),
          to: withoutPlus(request.to),
          answer_url: request.answerUrl,
          answer_method: 'POST',
          ring_url: request.statusCallbackUrl,
          ring_method: 'POST',
          hangup_url: request.statusCallbackUrl,
          hangup_method: 'POST',
        },
      });
      const fired = readBody(dialect.label, Fired, body);
      const providerCallId = fired.call_uuid ?? fired.request_uuid;
      if (!providerCallId) throw new ProviderError(`${dialect.label} answered without a call id`);
      return { providerCallId };
    },

    /**
     * `originate` returns the request id; callbacks then report the call leg's CallUUID. Both are
     * accepted: a live call, then a finished call's record, then a call still queued.
     */
    async getCallStatus(providerCallId: string) {
      const live = await unlessNotFound(call({ method: 'GET', path: callPath(providerCallId, '?status=live') }));
      if (live) {
        const { call_status } = readBody(dialect.label, LiveCall, live.body);
        const status = plivoStatus(call_status, undefined);
        if (!status) throw new ProviderError(`${dialect.label} reported an unknown call status: ${call_status}`);
        return { status, providerCallId, raw: live.body as Record<string, unknown> };
      }
      const finished = await unlessNotFound(call({ method: 'GET', path: callPath(providerCallId) }));
      if (finished) {
        const record = readBody(dialect.label, CallRecord, finished.body);
        const duration = record.call_duration ?? 0;
        return {
          status: plivoRecordStatus(record.hangup_cause_code ?? undefined, duration),
          providerCallId,
          ...durationOf(record.bill_duration ?? record.call_duration),
          raw: finished.body as Record<string, unknown>,
        };
      }
      const queued = await unlessNotFound(call({ method: 'GET', path: callPath(providerCallId, '?status=queued') }));
      return queued ? { status: 'initiated', providerCallId, raw: queued.body as Record<string, unknown> } : null;
    },

    /** A call not yet answered is canceled as a request; an answered one is hung up as a call. */
    async hangup(providerCallId: string) {
      const canceled = await unlessNotFound(
        call({ method: 'DELETE', path: `${dialect.accountPath}/Request/${encodeURIComponent(providerCallId)}/` }),
      );
      if (!canceled) await call({ method: 'DELETE', path: callPath(providerCallId) });
    },

    parseStatusWebhook(request: WebhookRequest): StatusEvent {
      const fields = request.method.toUpperCase() === 'GET' ? queryFields(request.url) : formFields(request.rawBody);
      const status = plivoStatus(fields.CallStatus, fields.Event);
      if (!status) {
        throw new ProviderError(`${dialect.label} sent an unknown CallStatus: ${fields.CallStatus ?? '(none)'}`);
      }
      return {
        status,
        providerCallId: fields.CallUUID ?? fields.RequestUUID,
        ...durationOf(fields.Duration),
        raw: fields,
      };
    },
  };
}

function queryFields(url: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(url.split('?')[1] ?? '').entries());
}
