import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Agent, AgentVersion, PhoneNumber, Run, TelephonyConfiguration } from '../../entities';
import { createAgentRepository } from '../../entities/repositories/agent.repository';
import { createCallTargetRepository } from '../../entities/repositories/call-target.repository';
import { createRunRepository } from '../../entities/repositories/run.repository';
import { answerUrls } from '../../telephony/inbound';
import { conversationModeOf } from '../../telephony/conversation-mode';
import type { Secrets } from '../../telephony/secrets';
import { signalCallStatus } from './call-status-signal';
import { ariInbound } from '../../telephony/providers/ari/inbound';
import type {
  AnswerTarget,
  InboundCall,
  ProviderReply,
  TelephonyProvider,
  WebhookRequest,
} from '../../telephony/provider';
import { callWorkflowId } from '../../workflows/definitions';
import { normalizeAddress } from '../telephony/phone-address';
import { maxCallDurationOf, startCallWorkflow } from './start-call';

/** What inbound calls need; the API passes its own, the worker's ARI listener builds the same. */
export interface InboundDeps {
  dataSource: DataSource;
  temporal: Client;
  taskQueue: string;
  /** `PUBLIC_BASE_URL`: the media and status URLs of inbound runs hang off it. */
  publicBaseUrl: string;
  /** Signs the media URL's token (key derived from SECRETS_KEY). */
  secrets: Secrets;
  adapterFor: (row: TelephonyConfiguration) => TelephonyProvider;
}

/** A called number of ours, its configuration, and that configuration's adapter. */
export interface CalledNumber {
  number: PhoneNumber;
  configuration: TelephonyConfiguration;
  adapter: TelephonyProvider;
}

export type InboundOutcome =
  { answered: true; runId: number; reply: ProviderReply } | { answered: false; reason: string; reply: ProviderReply };

const SEPARATORS = /[\s().-]/g;

/**
 * A number as providers write it, in the form phone numbers are stored: Plivo, Vobiz and Vonage
 * send E.164 digits without `+`; SIP URIs and extensions are normalized as on create.
 */
export function inboundAddress(raw: string): string {
  const compact = raw.trim().replace(SEPARATORS, '');
  const candidate = /^\d{8,15}$/.test(compact) ? `+${compact}` : raw.trim();
  try {
    return normalizeAddress(candidate).addressNormalized;
  } catch {
    // Not a number we could have stored: it matches no row.
    return candidate;
  }
}

/**
 * The number an inbound webhook called, among every organization's numbers of this provider: the
 * one whose configuration's credentials verify the webhook's signature. Several organizations may
 * hold the same number, so the order is fixed: configurations of the provider account the webhook
 * names come first, then those that name no account, oldest first; a configuration of another
 * account is never tried. Registering a victim's number therefore captures none of its calls.
 * `unknown` when no configuration holds the number; `forbidden` when some does but none signed the
 * webhook.
 */
export async function findCalledNumber(
  deps: Pick<InboundDeps, 'dataSource' | 'adapterFor'>,
  provider: string,
  call: InboundCall,
  request: WebhookRequest,
): Promise<CalledNumber | 'unknown' | 'forbidden'> {
  const targets = createCallTargetRepository(deps.dataSource);
  const numbers = await targets.numbersAt(inboundAddress(call.calledNumber));
  const configurations = numbers.length
    ? await targets.configurationsOfProvider(
        numbers.map((number) => number.telephonyConfigurationId),
        provider,
      )
    : [];
  if (configurations.length === 0) return 'unknown';
  const candidates = configurations.map((configuration) => ({
    configuration,
    adapter: deps.adapterFor(configuration),
  }));
  const rank = ({ adapter }: { adapter: TelephonyProvider }): number =>
    call.accountId === undefined || adapter.accountId === undefined ? 1 : adapter.accountId === call.accountId ? 0 : 2;
  const ordered = candidates.filter((candidate) => rank(candidate) < 2).sort((a, b) => rank(a) - rank(b));
  for (const { configuration, adapter } of ordered) {
    if (!(await adapter.verifyWebhook(request))) continue;
    const number = numbers.find((candidate) => candidate.telephonyConfigurationId === configuration.id);
    if (number) return { number, configuration, adapter };
  }
  return 'forbidden';
}

/**
 * Takes an inbound call to a number of ours: with an active number bound to an active agent, it
 * creates the inbound run, starts its call workflow in inbound mode and answers with the
 * provider's stream markup (or commands); otherwise it refuses politely. A repeated webhook for the
 * same provider call answers the run it already created.
 */
export async function acceptInboundCall(
  deps: InboundDeps,
  called: CalledNumber,
  call: InboundCall,
): Promise<InboundOutcome> {
  const { number, configuration, adapter } = called;
  const refuse = async (reason: string): Promise<InboundOutcome> => ({
    answered: false,
    reason,
    reply: await adapter.rejectCall(call.providerCallId),
  });
  if (!number.isActive) return refuse('the number is not active');
  if (number.inboundWorkflowId === null) return refuse('no agent is bound to the number');
  const agent = await createAgentRepository(deps.dataSource).findOwned(number.organizationId, number.inboundWorkflowId);
  const version =
    agent && agent.status !== 'archived' && agent.currentDefinitionId
      ? await createCallTargetRepository(deps.dataSource).findVersion(agent.currentDefinitionId)
      : null;
  if (!agent || !version) return refuse('the bound agent is archived or has no version');

  const { run, created } = await inboundRun(deps.dataSource, { agent, version, number, configuration, call });
  if (!created && run.isCompleted) return refuse('the call has already ended');
  if (created) {
    await startCallWorkflow(deps, { id: run.id, otherParty: run.callerNumber }, agent, {
      runId: run.id,
      attempt: 1,
      maxDurationSeconds: maxCallDurationOf(version),
      direction: 'inbound',
      providerCallId: call.providerCallId,
      conversation: conversationModeOf(configuration, deps.secrets),
      provider: configuration.provider,
    });
  }

  const target: AnswerTarget = {
    runId: run.id,
    providerCallId: call.providerCallId,
    ...answerUrls(deps.publicBaseUrl, configuration.provider, run.id, deps.secrets),
  };
  try {
    return { answered: true, runId: run.id, reply: await adapter.answerCall(target) };
  } catch (error) {
    // The provider refused to answer (a call-control command failed): the call is over before it began.
    await signalCallStatus(deps.temporal, run, { status: 'failed', providerCallId: call.providerCallId });
    throw error;
  }
}

/**
 * The inbound run of this provider call: created once. An advisory lock on the provider call id
 * serializes repeated webhooks, so a retry never creates a second run.
 */
async function inboundRun(
  dataSource: DataSource,
  {
    agent,
    version,
    number,
    configuration,
    call,
  }: {
    agent: Agent;
    version: AgentVersion;
    number: PhoneNumber;
    configuration: TelephonyConfiguration;
    call: InboundCall;
  },
): Promise<{ run: Run; created: boolean }> {
  const provider = configuration.provider;
  const callerNumber = call.callerNumber ? inboundAddress(call.callerNumber) : null;
  return createRunRepository(dataSource).transaction(async (runs) => {
    await runs.lockInboundCall(provider, call.providerCallId);
    const existing = await runs.findInboundOfCall(provider, call.providerCallId, configuration.id);
    if (existing) return { run: existing, created: false };
    const run = await runs.insertInboundRun({
      organizationId: agent.organizationId,
      agentId: agent.id,
      agentVersionId: version.id,
      name: 'call',
      provider,
      callType: 'inbound',
      // The call is live: the provider is waiting for our answer.
      state: 'running',
      telephonyConfigurationId: configuration.id,
      calledNumber: number.addressNormalized,
      callerNumber,
      callerIdVerified: call.callerIdVerified,
      providerCallId: call.providerCallId,
      initialContext: {
        called_number: number.addressNormalized,
        caller_number: callerNumber,
        direction: 'inbound',
        provider,
      },
      logs: { inbound_webhook: call.raw },
    });
    run.name = `call-${run.id}`;
    run.temporalWorkflowId = callWorkflowId(run.id);
    await runs.nameInboundRun(run.id, run.name, run.temporalWorkflowId);
    return { run, created: true };
  });
}

/**
 * For the worker's ARI listener, which owns the configuration's events WebSocket: call it with the
 * text of every `StasisStart`. A channel the dialplan sent into our Stasis app for one of the
 * configuration's numbers (the dialplan extension) is taken like any inbound call: run, workflow,
 * then the channel is answered over ARI (the worker bridges its audio); an unknown extension is hung
 * up as busy. Null for a StasisStart of a channel we originated (it carries `run_id=` in its args).
 * The listener then routes the channel's status events to the run whose `provider_call_id` is the
 * channel id. Throws ProviderError for text that is not an ARI event.
 */
export async function acceptAriStasisStart(
  deps: InboundDeps,
  configuration: TelephonyConfiguration,
  eventText: string,
): Promise<InboundOutcome | null> {
  const call = ariInbound.parse({ method: 'POST', url: '', headers: {}, rawBody: eventText });
  if (!call) return null;
  const adapter = deps.adapterFor(configuration);
  const number = await createCallTargetRepository(deps.dataSource).numberOfConfiguration(
    configuration.id,
    inboundAddress(call.calledNumber),
  );
  if (!number) {
    return {
      answered: false,
      reason: 'the extension is no number of this configuration',
      reply: await adapter.rejectCall(call.providerCallId),
    };
  }
  return acceptInboundCall(deps, { number, configuration, adapter }, call);
}
