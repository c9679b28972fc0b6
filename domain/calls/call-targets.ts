import type { DataSource } from 'typeorm';
import type { Agent, PhoneNumber, TelephonyConfiguration } from '../../entities';
import { createCallTargetRepository } from '../../entities/repositories/call-target.repository';
import { conversationModeOf } from '../../telephony/conversation-mode';
import { ConflictError, InvalidError, NotFoundError } from '../errors';
import { resolveTrigger } from '../agents/triggers';
import type { AgentVersionCache, AgentVersionContent } from '../agents/version-cache';
import type { TelephonyServices } from '../telephony/telephony-services';
import { createAgentRepository } from '../../entities/repositories/agent.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NOT_CONFIGURED = 'Telephony provider not configured for this organization';

/** The agent an API trigger path calls, in the caller's organization; 404 for anything else. */
export async function agentByTriggerPath(dataSource: DataSource, organizationId: number, path: string) {
  const trigger = await resolveTrigger(dataSource, path);
  const agent =
    trigger && trigger.organizationId === organizationId
      ? await createAgentRepository(dataSource).findOwned(organizationId, trigger.agentId)
      : null;
  if (!agent) throw new NotFoundError('Agent trigger not found');
  return agent;
}

/** The agent of an Agent UUID, in the caller's organization; 404 for anything else (a trigger path too). */
export async function agentByUuid(dataSource: DataSource, organizationId: number, uuid: string) {
  const agent = UUID.test(uuid)
    ? await createCallTargetRepository(dataSource).agentByUuid(organizationId, uuid.toLowerCase())
    : null;
  if (!agent) throw new NotFoundError('Workflow not found');
  return agent;
}

/** The organization's agent with that id; 404 for anything else. */
export async function agentById(dataSource: DataSource, organizationId: number, id: number): Promise<Agent> {
  const agent = await createAgentRepository(dataSource).findOwned(organizationId, id);
  if (!agent) throw new NotFoundError(`Workflow with id ${id} not found`);
  return agent;
}

export type CallableVersion = AgentVersionContent & { id: number };

/** The version an active agent's calls run with; 409 for an archived agent. */
export async function callableVersion(versions: AgentVersionCache, agent: Agent): Promise<CallableVersion> {
  if (agent.status === 'archived') throw new ConflictError('Agent is archived');
  if (!agent.currentDefinitionId) throw new NotFoundError('Workflow not found');
  return { id: agent.currentDefinitionId, ...(await versions.get(agent.currentDefinitionId)) };
}

export interface CallRoute {
  configuration: TelephonyConfiguration;
  /** The caller id (E.164 or SIP address); null where the provider dials without one. */
  callerNumber: string | null;
  /** `live` when the call carries audio, else `simulated` (`conversationModeOf`). */
  conversation: 'live' | 'simulated';
}

/**
 * The configuration a call goes through (the explicit one, else the organization's default
 * outbound one), checked ready, and its caller id: the explicit number, else the configuration's
 * default caller id, else its first active number.
 */
export async function callRoute(
  dataSource: DataSource,
  telephony: TelephonyServices,
  organizationId: number,
  choice: { telephonyConfigurationId?: number | null; fromPhoneNumberId?: number | null },
): Promise<CallRoute> {
  const targets = createCallTargetRepository(dataSource);
  const configuration = choice.telephonyConfigurationId
    ? await targets.findOwnedConfiguration(organizationId, choice.telephonyConfigurationId)
    : await targets.defaultOutboundConfiguration(organizationId);
  if (!configuration) {
    if (choice.telephonyConfigurationId) throw new NotFoundError('Telephony configuration not found');
    throw new InvalidError(NOT_CONFIGURED);
  }
  if (!telephony.providers.some((definition) => definition.name === configuration.provider)) {
    throw new InvalidError(NOT_CONFIGURED);
  }
  const numbers = await targets.numbersOf(configuration.id);
  const readiness = telephony.adapterFor(configuration).readiness(
    numbers.map((number) => ({
      address: number.addressNormalized,
      isActive: number.isActive,
      isDefaultCallerId: number.isDefaultCallerId,
    })),
  );
  if (!readiness.ready) throw new InvalidError(`Telephony provider not ready: ${readiness.reason}`);

  const active = numbers.filter((number) => number.isActive);
  let caller: PhoneNumber | undefined;
  if (choice.fromPhoneNumberId) {
    caller = numbers.find((number) => number.id === choice.fromPhoneNumberId);
    if (!caller) throw new NotFoundError('Phone number not found');
    if (!caller.isActive) throw new InvalidError('The phone number to call from is not active');
  } else {
    caller = active.find((number) => number.isDefaultCallerId) ?? active[0];
  }
  return {
    configuration,
    callerNumber: caller?.addressNormalized ?? null,
    conversation: conversationModeOf(configuration, telephony.secrets),
  };
}
