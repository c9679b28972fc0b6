import { z } from 'zod';
import { basicAuth, callProvider, readBody, syncFailure, unlessNotFound, type ProviderRequest } from '../../http';
import {
  ProviderError,
  type OriginateRequest,
  type ProviderContext,
  type ProviderSync,
  type StatusEvent,
  type TelephonyProvider,
  type WebhookRequest,
} from '../../provider';
import { requireActiveNumber } from '../../readiness';
import { durationOf } from '../../status-fields';
import { formFields } from '../../webhook-signatures';
import type { TwilioConfig } from './config';
import { twilioAnswering } from './inbound';
import { verifyTwilioSignature } from './signature';
import { twilioAnsweredBy, twilioStatus } from './statuses';
import { twilioTransfer } from './transfer';

const LABEL = 'Twilio';
const ORIGIN = 'https://api.twilio.com';

const CallResource = z.object({
  sid: z.string().min(1),
  status: z.string(),
  duration: z.string().nullish(),
  answered_by: z.string().nullish(),
});
type CallResource = z.output<typeof CallResource>;

const IncomingNumbers = z.object({ incoming_phone_numbers: z.array(z.object({ sid: z.string() })) });

/**
 * Answering-machine detection, asynchronous: the call connects to the agent at once, and Twilio
 * posts its verdict (`AnsweredBy`, no `CallStatus`) to the status callback when it has one. A call
 * that leaves a message asks for `DetectMessageEnd`, whose machine verdicts come once the greeting
 * ended (the beep); `amd_enabled` alone asks for `Enable`, which answers sooner. Twilio bills it.
 */
function machineDetectionFields(config: TwilioConfig, request: OriginateRequest): Record<string, string> {
  const mode = request.machineDetection === 'message_end' ? 'DetectMessageEnd' : config.amd_enabled ? 'Enable' : null;
  if (!mode) return {};
  return {
    MachineDetection: mode,
    AsyncAmd: 'true',
    AsyncAmdStatusCallback: request.statusCallbackUrl,
    AsyncAmdStatusCallbackMethod: 'POST',
  };
}

/** Twilio Programmable Voice (REST API 2010-04-01), HTTP Basic with the account SID and auth token. */
export function createTwilioProvider(config: TwilioConfig, context: ProviderContext = {}): TelephonyProvider {
  const account = `/2010-04-01/Accounts/${encodeURIComponent(config.account_sid)}`;
  const call = (request: ProviderRequest) =>
    callProvider(LABEL, ORIGIN, context, {
      ...request,
      headers: { authorization: basicAuth(config.account_sid, config.auth_token) },
    });
  const callPath = (sid: string) => `${account}/Calls/${encodeURIComponent(sid)}.json`;

  return {
    accountId: config.account_sid,
    // Twilio's REST API takes no idempotency key: before re-dialing, the call workflow asks
    // getCallStatus about the call id it already has.
    async originate(request: OriginateRequest) {
      if (!request.from) throw new ProviderError('Twilio needs a caller id (from number) to place a call');
      const { body } = await call({
        method: 'POST',
        path: `${account}/Calls.json`,
        form: {
          To: request.to,
          From: request.from,
          Url: request.answerUrl,
          Method: 'POST',
          StatusCallback: request.statusCallbackUrl,
          StatusCallbackMethod: 'POST',
          StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          ...machineDetectionFields(config, request),
        },
      });
      return { providerCallId: readBody(LABEL, CallResource, body).sid };
    },

    async getCallStatus(providerCallId: string) {
      const response = await unlessNotFound(call({ method: 'GET', path: callPath(providerCallId) }));
      if (!response) return null;
      return statusOfResource(readBody(LABEL, CallResource, response.body));
    },

    async hangup(providerCallId: string) {
      // `completed` ends a call in any state; `canceled` would leave one in progress running.
      await call({ method: 'POST', path: callPath(providerCallId), form: { Status: 'completed' } });
    },

    parseStatusWebhook(request: WebhookRequest): StatusEvent {
      const fields = formFields(request.rawBody);
      const answeredBy = twilioAnsweredBy(fields.AnsweredBy);
      // The asynchronous AMD callback: the verdict alone, on a call that is in progress.
      if (fields.CallStatus === undefined && fields.AnsweredBy !== undefined) {
        return {
          status: 'answered',
          providerCallId: fields.CallSid,
          ...(answeredBy ? { answeredBy } : {}),
          raw: fields,
        };
      }
      const status = twilioStatus(fields.CallStatus ?? '', fields.AnsweredBy);
      if (!status) throw new ProviderError(`Twilio sent an unknown CallStatus: ${fields.CallStatus ?? '(none)'}`);
      return {
        status,
        providerCallId: fields.CallSid,
        ...durationOf(fields.CallDuration),
        ...(status === 'answered' && answeredBy ? { answeredBy } : {}),
        raw: fields,
      };
    },

    verifyWebhook(request: WebhookRequest) {
      return verifyTwilioSignature(config.auth_token, request);
    },

    async configureInbound(address: string, url: string | null): Promise<ProviderSync> {
      if (!address.startsWith('+')) return { ok: true, message: 'Not a PSTN number: nothing to configure at Twilio.' };
      try {
        const { body } = await call({
          method: 'GET',
          path: `${account}/IncomingPhoneNumbers.json?PhoneNumber=${encodeURIComponent(address)}`,
        });
        const [owned] = readBody(LABEL, IncomingNumbers, body).incoming_phone_numbers;
        if (!owned) {
          return url
            ? { ok: false, message: `${address} is not a phone number of this Twilio account.` }
            : { ok: true, message: `${address} is not in this Twilio account: nothing to detach.` };
        }
        await call({
          method: 'POST',
          path: `${account}/IncomingPhoneNumbers/${encodeURIComponent(owned.sid)}.json`,
          form: { VoiceUrl: url ?? '', VoiceMethod: 'POST' },
        });
        return url
          ? { ok: true, message: `Twilio sends inbound calls to ${address} to Switchboard.` }
          : { ok: true, message: `Twilio no longer sends inbound calls to ${address} to Switchboard.` };
      } catch (error) {
        return syncFailure(error);
      }
    },

    readiness: requireActiveNumber,
    ...twilioAnswering,
    transfer: twilioTransfer({ call, account, callPath, now: context.now ?? (() => new Date()) }),
  };
}

function statusOfResource(resource: CallResource): StatusEvent {
  const status = twilioStatus(resource.status, resource.answered_by);
  if (!status) throw new ProviderError(`Twilio reported an unknown call status: ${resource.status}`);
  const answeredBy = status === 'answered' ? twilioAnsweredBy(resource.answered_by) : undefined;
  return {
    status,
    providerCallId: resource.sid,
    ...durationOf(resource.duration),
    ...(answeredBy ? { answeredBy } : {}),
    raw: resource,
  };
}
