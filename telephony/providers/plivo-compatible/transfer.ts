import { createHash } from 'node:crypto';
import { callProvider, type ProviderRequest } from '../../http';
import { escapeXml, webhookFields, xmlReply } from '../../inbound';
import {
  ProviderError,
  type AnswerTarget,
  type ProviderContext,
  type ProviderReply,
  type StartTransferRequest,
  type TelephonyTransfer,
  type TransferEvent,
  type TransferStatus,
  type WebhookRequest,
} from '../../provider';
import type { PlivoDialect } from './calls';
import { plivoStreamXml } from './markup';

/**
 * The requests Plivo (and Vobiz) make to the transfer callback, told apart by the `step` the
 * adapter put in each URL's query: `dial` fetches the `<Dial>` (the call transfer's `aleg_url`),
 * `hold` its `dialMusic`, `announce` its `confirmSound` (warm), `events` is its `callbackUrl`
 * (the destination leg answered, connected, hung up) and `result` its `action` (how the dial ended).
 */
type Step = 'dial' | 'hold' | 'announce' | 'events' | 'result';
const STEPS: ReadonlySet<string> = new Set<Step>(['dial', 'hold', 'announce', 'events', 'result']);

/** `DialStatus` at the dial's action URL; `completed`: the person answered and the call was joined. */
const DIAL_STATUSES: Readonly<Record<string, TransferStatus>> = {
  completed: 'answered',
  busy: 'busy',
  'no-answer': 'no-answer',
  timeout: 'no-answer',
  failed: 'failed',
  cancel: 'canceled',
};

const HANGUP = xmlReply('<Response><Hangup/></Response>');

/**
 * Blind and warm transfer by Plivo's call transfer API: the caller's leg (A leg) is moved to the
 * transfer callback, which answers a `<Dial>` of the destination with hold audio as its dial music
 * and, when warm, the announcement as its confirm sound (spoken to the person by the provider's
 * text-to-speech before the two are joined). The dial's action brings the caller back to the agent
 * when nobody answered, and hangs up once a joined call is over. Everything the markup needs is in
 * the callback URLs, which the provider's signature covers, so no state is kept between requests.
 */
export function plivoCompatibleTransfer(dialect: PlivoDialect, context: ProviderContext): TelephonyTransfer {
  const call = (request: ProviderRequest) =>
    callProvider(dialect.label, dialect.origin, context, { ...request, headers: dialect.authHeaders });
  const moveCaller = (providerCallId: string, url: string) =>
    call({
      method: 'POST',
      path: `${dialect.accountPath}/Call/${encodeURIComponent(providerCallId)}/`,
      json: { legs: 'aleg', aleg_url: url, aleg_method: 'POST' },
    });

  return {
    async start(request: StartTransferRequest) {
      const transferId = transferIdOf(request.idempotencyKey, request.answerUrl);
      const dialUrl = withQuery(request.transferCallbackUrl, {
        transfer: transferId,
        step: 'dial',
        to: request.destination,
        timeout: String(request.ringTimeoutSeconds),
        hold: request.holdAudioUrl,
        ...(request.from ? { from: request.from } : {}),
        ...(request.mode === 'warm' && request.announcement ? { announce: request.announcement } : {}),
      });
      await moveCaller(request.providerCallId, dialUrl);
      return { transferId };
    },

    /**
     * The caller's leg is moved to its answer URL (the stream back to the agent), which ends the
     * dial and so the ringing destination: these APIs stop a dial no other way.
     */
    async cancel(providerCallId: string, transferId: string) {
      await moveCaller(providerCallId, answerUrlOf(transferId, dialect.label));
    },

    /** The destination leg has no id before it answers, and the API looks up no dial: events only. */
    status: () => Promise.resolve(null),

    parseWebhook(request: WebhookRequest): TransferEvent {
      const { step, transfer, fields } = transferRequest(request, dialect.label);
      const status = statusOf(step, fields, dialect.label);
      const providerCallId = fields.DialALegUUID ?? fields.CallUUID;
      return {
        status,
        transferId: transfer,
        ...(providerCallId ? { providerCallId } : {}),
        raw: { ...fields, step },
      };
    },

    markup(request: WebhookRequest, caller: AnswerTarget): ProviderReply | null {
      const { step, query, fields } = transferRequest(request, dialect.label);
      const base = request.url.split('?')[0] ?? request.url;
      switch (step) {
        case 'dial':
          return xmlReply(dialXml(base, query));
        case 'hold':
          return xmlReply(`<Response><Play loop="0">${escapeXml(query.hold ?? '')}</Play></Response>`);
        case 'announce':
          return xmlReply(`<Response><Speak>${escapeXml(query.announce ?? '')}</Speak></Response>`);
        case 'result':
          return fields.DialStatus === 'completed' ? HANGUP : xmlReply(plivoStreamXml(caller));
        case 'events':
          return null;
      }
    },
  };
}

/** The same tool call always gets the same id; the caller's answer URL rides along for `cancel`. */
function transferIdOf(idempotencyKey: string, answerUrl: string): string {
  const digest = createHash('sha256').update(idempotencyKey, 'utf8').digest('hex').slice(0, 24);
  return `${digest}.${Buffer.from(answerUrl, 'utf8').toString('base64url')}`;
}

function answerUrlOf(transferId: string, label: string): string {
  const encoded = transferId.split('.')[1];
  const url = encoded ? Buffer.from(encoded, 'base64url').toString('utf8') : '';
  if (!/^https?:\/\//.test(url)) throw new ProviderError(`${label} transfer id ${transferId} is not one of ours`);
  return url;
}

/**
 * The `<Dial>` of the destination (`<User>` for a SIP address), ringing at most the ring timeout,
 * with its callbacks, hold music and (warm) announcement at the transfer callback.
 */
function dialXml(base: string, query: Record<string, string>): string {
  const transfer = query.transfer ?? '';
  const step = (name: Step, extra: Record<string, string> = {}) =>
    escapeXml(withQuery(base, { transfer, step: name, ...extra }));
  const to = query.to ?? '';
  const attributes = [
    query.from ? `callerId="${escapeXml(query.from)}"` : '',
    `timeout="${escapeXml(query.timeout ?? '30')}"`,
    `action="${step('result')}" method="POST" redirect="true"`,
    `callbackUrl="${step('events')}" callbackMethod="POST"`,
    query.hold ? `dialMusic="${step('hold', { hold: query.hold })}"` : '',
    query.announce ? `confirmSound="${step('announce', { announce: query.announce })}"` : '',
  ].filter(Boolean);
  const destination = to.startsWith('sip:') ? `<User>${escapeXml(to)}</User>` : `<Number>${escapeXml(to)}</Number>`;
  return `<Response><Dial ${attributes.join(' ')}>${destination}</Dial></Response>`;
}

function statusOf(step: Step, fields: Record<string, string>, label: string): TransferStatus {
  switch (step) {
    case 'dial':
    case 'hold':
      return 'ringing';
    case 'announce':
      // The confirm sound is fetched when the person picks up.
      return 'answered';
    case 'events': {
      const action = (fields.DialAction ?? '').toLowerCase();
      return action === 'answer' || action === 'connected' ? 'answered' : 'ringing';
    }
    case 'result': {
      const status = DIAL_STATUSES[(fields.DialStatus ?? '').toLowerCase()];
      if (!status) throw new ProviderError(`${label} sent an unknown DialStatus: ${fields.DialStatus ?? '(none)'}`);
      return status;
    }
  }
}

/** The step and transfer id from the callback URL's query, and the request's own fields. */
function transferRequest(request: WebhookRequest, label: string) {
  const query = Object.fromEntries(new URLSearchParams(request.url.split('#')[0]?.split('?')[1] ?? '').entries());
  const step = query.step;
  const transfer = query.transfer;
  if (!step || !STEPS.has(step) || !transfer) throw new ProviderError(`${label} request is not a transfer event`);
  const fields = Object.fromEntries(
    Object.entries(webhookFields(request, label)).flatMap(([key, value]) =>
      typeof value === 'string' ? [[key, value]] : [],
    ),
  );
  return { step: step as Step, transfer, query, fields };
}

function withQuery(url: string, params: Record<string, string>): string {
  return `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(params).toString()}`;
}
