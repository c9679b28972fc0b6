import type { DataSource } from 'typeorm';
import type { AddressPolicy } from '../platform/address-guard';
import type { z } from 'zod';
import type { Secrets } from './secrets';

/**
 * The one interface every telephony provider adapter implements. Adapters call the provider's real
 * HTTP API; tests point `apiBaseUrl` at a local server that speaks the provider's wire format.
 */

export const PROVIDER_NAMES = [
  'ari',
  'cloudonix',
  'plivo',
  'telnyx',
  'twilio',
  'vobiz',
  'vonage',
  'simulator',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

const PROGRESS_STATUSES = ['initiated', 'ringing', 'answered'] as const;
/** How a call ends; `gathered_context.call_status` is one of these. */
export const TERMINAL_STATUS_LIST = [
  'completed',
  'busy',
  'no-answer',
  'voicemail',
  'failed',
  'canceled',
  'error',
] as const;

/** Normalized call status. */
export const CALL_STATUSES = [...PROGRESS_STATUSES, ...TERMINAL_STATUS_LIST] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const TERMINAL_CALL_STATUSES: ReadonlySet<CallStatus> = new Set(TERMINAL_STATUS_LIST);

export interface OriginateRequest {
  runId: number;
  /** E.164, or a SIP address for providers that dial SIP. */
  to: string;
  /** The caller id (E.164); null where the provider allows none (ARI). */
  from: string | null;
  /** Derived from the call workflow id and attempt: the same key never dials twice. */
  idempotencyKey: string;
  /** `${PUBLIC_BASE_URL}/api/v1/telephony/{provider}/status/{runId}`. */
  statusCallbackUrl: string;
  /** Where the provider fetches call instructions on answer (`.../telephony/{provider}/answer/{runId}`). */
  answerUrl: string;
  /** The media WebSocket (`wss://.../telephony/{provider}/media/{runId}`). */
  mediaStreamUrl: string;
  /**
   * `message_end`: the call leaves a message when a machine answers, so it asks the provider's
   * answering-machine detection to report when the machine's greeting ended (its beep), whatever
   * the configuration says. Unset: detection as the configuration says.
   */
  machineDetection?: 'message_end';
}

export interface OriginateResult {
  providerCallId: string;
}

export interface StatusEvent {
  status: CallStatus;
  providerCallId?: string;
  /** Billable seconds when the provider reports them. */
  durationSeconds?: number;
  /**
   * Answering-machine detection on an `answered` event: `machine` once the machine's greeting
   * ended with its beep (a message left now is recorded), `human` for a person.
   */
  answeredBy?: 'human' | 'machine';
  /** The provider's own payload, kept in the run's logs. */
  raw: Record<string, unknown>;
}

/** A webhook as it arrived: the public URL the provider called, lower-cased headers and the raw body. */
export interface WebhookRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  rawBody: string;
}

/** A new inbound call as the provider announced it (see `parseInboundWebhook`). */
export interface InboundCall {
  /** The number that was called (ours), as the provider wrote it; the route normalizes it. */
  calledNumber: string;
  /** The caller's number or address, when the provider gives one. */
  callerNumber: string | null;
  providerCallId: string;
  /**
   * The provider account or connection the call arrived on (Twilio's `AccountSid`, Telnyx's
   * `connection_id`): routing tries the configurations of that account first.
   */
  accountId?: string;
  /**
   * The provider vouches for the caller's number: STIR/SHAKEN full attestation (`A`) that it
   * validated. False when it says otherwise or says nothing (most providers, most countries).
   */
  callerIdVerified: boolean;
  /** The provider's own payload, kept in the run's logs. */
  raw: Record<string, unknown>;
}

/** Where an answered call's media streams to and its status events go. */
export interface AnswerTarget {
  runId: number;
  providerCallId: string;
  /** `wss://<PUBLIC_BASE_URL host>/api/v1/telephony/{provider}/media/{runId}`. */
  mediaStreamUrl: string;
  /** `${PUBLIC_BASE_URL}/api/v1/telephony/{provider}/status/{runId}`. */
  statusCallbackUrl: string;
}

/** The HTTP answer to a provider's call webhook: markup (TwiML, XML, NCCO, cXML) or an acknowledgement. */
export interface ProviderReply {
  contentType: string;
  body: string;
}

export interface ProviderSync {
  ok: boolean;
  message: string;
}

export type Readiness = { ready: true } | { ready: false; reason: string };

export interface NumberForReadiness {
  address: string;
  isActive: boolean;
  isDefaultCallerId: boolean;
}

export interface TelephonyProvider {
  /** The provider account or connection this configuration stands for, where webhooks name one. */
  accountId?: string;
  /** Places the call; throws ProviderError on a refusal. */
  originate(request: OriginateRequest): Promise<OriginateResult>;
  /** Asks the provider for the call's current status (reconciliation); null when it does not know the call. */
  getCallStatus(providerCallId: string): Promise<StatusEvent | null>;
  hangup(providerCallId: string): Promise<void>;
  /** One normalized status from a status webhook; throws ProviderError when the payload is not one. */
  parseStatusWebhook(request: WebhookRequest): StatusEvent;
  /** True only when the webhook carries a valid signature (or key) of this configuration. */
  verifyWebhook(request: WebhookRequest): boolean | Promise<boolean>;
  /**
   * Checks a run's answer-URL request where the provider's signature does not cover the URL
   * (Vonage's token signs a body, and a GET answer has none): the request must name the run's call
   * (`providerCallId`; null: not placed yet, refused) and its token be used only once. Providers
   * without it are checked with `verifyWebhook`, whose signature covers the URL and so the run.
   */
  verifyAnswerWebhook?(request: WebhookRequest, providerCallId: string | null): Promise<boolean>;
  /** Points the number's inbound calls at `url`, or detaches it (null). Never throws. */
  configureInbound(address: string, url: string | null): Promise<ProviderSync>;
  readiness(numbers: NumberForReadiness[]): Readiness;
  /**
   * Answers a call by streaming its media to `target`: markup to reply with, or (Telnyx, ARI)
   * call-control commands sent before an acknowledgement. Throws ProviderError when a command fails.
   */
  answerCall(target: AnswerTarget): Promise<ProviderReply>;
  /** The provider's polite refusal of an inbound call that no agent takes. Never throws. */
  rejectCall(providerCallId: string): Promise<ProviderReply>;
  /** Call transfer; absent where this adapter cannot transfer (`ProviderDefinition.transferModes` is empty). */
  transfer?: TelephonyTransfer;
}

export type TransferMode = 'blind' | 'warm';

/** How a transfer's destination leg stands: ringing, then answered (and joined), or how it failed. */
export const TRANSFER_STATUSES = ['ringing', 'answered', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export interface StartTransferRequest {
  runId: number;
  providerCallId: string;
  /** E.164 or a SIP URI. */
  destination: string;
  /** The caller id shown to the destination (E.164); null where the provider takes none. */
  from: string | null;
  mode: TransferMode;
  /** Warm transfers: what the person hears when they answer, before the caller is joined; null when blind. */
  announcement: string | null;
  /** The audio the caller hears while the destination rings (a WAV the provider fetches). */
  holdAudioUrl: string;
  /** The same audio as MP3, for providers that play hold music from MP3 files only. */
  holdAudioMp3Url: string;
  ringTimeoutSeconds: number;
  /** Derived from the workflow and the tool call: the same key never transfers twice. */
  idempotencyKey: string;
  /** `${PUBLIC_BASE_URL}/api/v1/telephony/{provider}/transfer/{runId}`: where transfer events go. */
  transferCallbackUrl: string;
  /** Where the provider fetches the caller's next instructions (markup providers), as for an answer. */
  answerUrl: string;
  mediaStreamUrl: string;
}

export interface TransferEvent {
  status: TransferStatus;
  /** The provider's id of the destination leg (or of the transfer), when it names one. */
  transferId?: string;
  providerCallId?: string;
  raw: Record<string, unknown>;
}

/**
 * Call transfer, on adapters whose provider can hand a call to another number: the destination
 * is dialed and, once it answers, joined with the caller; events arrive at the transfer callback.
 */
export interface TelephonyTransfer {
  /** Starts ringing the destination; returns the transfer's id. Throws ProviderError on a refusal. */
  start(request: StartTransferRequest): Promise<{ transferId: string }>;
  /** Stops a destination still ringing; the caller stays on the call. Never throws for a transfer that is over. */
  cancel(providerCallId: string, transferId: string): Promise<void>;
  /** The transfer's current status (reconciliation); null when the provider does not know it. */
  status(providerCallId: string, transferId: string): Promise<TransferEvent | null>;
  /**
   * After a transfer that ended without a join (busy, no answer, failed, or the caller left): brings
   * a caller still waiting for it back to the agent, on providers where nothing else does (Twilio's
   * warm transfer holds the caller in a conference). Never throws for a call that is over.
   */
  release?(providerCallId: string, transferId: string): Promise<void>;
  /** One transfer event from a transfer webhook; throws ProviderError when the payload is not one. */
  parseWebhook(request: WebhookRequest): TransferEvent;
  /**
   * Providers whose warm transfer this service carries out step by step on the destination leg's
   * events (Telnyx: the announcement once the person answers, then the bridge with the caller):
   * sends the commands `event` calls for and returns it as it then stands (answered once joined).
   * A repeated event changes nothing. `providerCallId` is the caller's call.
   */
  advance?(event: TransferEvent, providerCallId: string): Promise<TransferEvent>;
  /**
   * Providers that fetch the transfer's call instructions from the transfer callback (Plivo's and
   * Vobiz's `aleg_url`, the dial's hold music and result): the markup answering this request, or
   * null for an event that takes none. `caller` streams the caller back to the agent.
   */
  markup?(request: WebhookRequest, caller: AnswerTarget): ProviderReply | null;
}

export interface ProviderField {
  name: string;
  label: string;
  type: 'text' | 'password' | 'textarea' | 'number' | 'boolean' | 'select';
  description: string;
  placeholder: string;
  required: boolean;
  sensitive: boolean;
}

export interface ProviderContext {
  /** Overrides the provider's API origin (tests point it at a local server). */
  apiBaseUrl?: string;
  fetch?: typeof fetch;
  /** Per-request timeout, ms. */
  timeoutMs?: number;
  now?: () => Date;
  /** For providers that keep state in PostgreSQL (the simulator). */
  dataSource?: DataSource;
  /** For providers that sign their own webhooks (the simulator derives its key from SECRETS_KEY). */
  secrets?: Secrets;
  /**
   * Which addresses a tenant-given endpoint (ARI) may reach; private ones are refused when unset.
   * Not applied to `apiBaseUrl`, which the operator sets.
   */
  endpointPolicy?: AddressPolicy;
}

export interface ProviderDefinition<Config extends Record<string, unknown> = Record<string, unknown>> {
  name: ProviderName;
  displayName: string;
  docsUrl: string;
  connectivity: 'api' | 'sip';
  /** The provider's configuration fields (without `provider`); sensitive ones are listed in `fields`. */
  configSchema: z.ZodType<Config>;
  fields: ProviderField[];
  /**
   * Dials per second when the configuration sets no `calls_per_second`: the provider's documented
   * default account limit; null where it documents none that applies (its calls are not paced).
   */
  defaultCallsPerSecond: number | null;
  /** Which transfer modes its adapter's `transfer` carries out; a tool needing another is refused at save. */
  transferModes: readonly TransferMode[];
  create(config: Config, context?: ProviderContext): TelephonyProvider;
  inbound: InboundWebhooks;
  /**
   * Fields the server sets, never the client: given the stored fields (null on create), their
   * values, which override whatever a request sent.
   */
  serverManaged?(stored: Record<string, unknown> | null): Partial<Config>;
  /**
   * Fields naming where the stored secrets are sent (ARI's `ari_endpoint`): an update that changes
   * one must carry every secret again, so a stored password never follows a new address.
   */
  addressFields?: string[];
}

/** The configuration-free half of inbound calls: used before the called number picks a configuration. */
export interface InboundWebhooks {
  /**
   * Reads a new inbound call from the inbound webhook; the configuration of the called number then
   * verifies the signature. Null for events that announce no new call (Telnyx sends every event of
   * the call there); throws ProviderError for a payload that is not an inbound call.
   */
  parse(request: WebhookRequest): InboundCall | null;
  /**
   * The polite refusal for a number no configuration holds, so without credentials: markup where the
   * provider takes markup; an acknowledgement where refusing takes an authenticated command.
   */
  refuseUnknown(): ProviderReply;
}

/** A provider answered with an error, or could not be reached. `status` is the provider's HTTP status. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
    /** A 429's `Retry-After`, in seconds, when the provider sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
