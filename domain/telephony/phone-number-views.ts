import { In, type DataSource } from 'typeorm';
import { Agent, type PhoneNumber } from '../../entities';
import type { ProviderSync } from '../../telephony/provider';
import type { PhoneNumberView } from './types';

/** Phone numbers as answered, each with the name of its inbound agent. */
export async function phoneNumberViews(dataSource: DataSource, numbers: PhoneNumber[]): Promise<PhoneNumberView[]> {
  const agentIds = [...new Set(numbers.flatMap((number) => number.inboundWorkflowId ?? []))];
  const agents = agentIds.length
    ? await dataSource.getRepository(Agent).find({ where: { id: In(agentIds) }, select: { id: true, name: true } })
    : [];
  const names = new Map(agents.map((agent) => [agent.id, agent.name]));
  return numbers.map((number) => phoneNumberView(number, names.get(number.inboundWorkflowId ?? 0) ?? null));
}

export async function phoneNumberViewOf(
  dataSource: DataSource,
  number: PhoneNumber,
  providerSync?: ProviderSync,
): Promise<PhoneNumberView> {
  const agent = number.inboundWorkflowId
    ? await dataSource.getRepository(Agent).findOne({ where: { id: number.inboundWorkflowId }, select: { name: true } })
    : null;
  return { ...phoneNumberView(number, agent?.name ?? null), ...(providerSync ? { provider_sync: providerSync } : {}) };
}

function phoneNumberView(number: PhoneNumber, inboundWorkflowName: string | null): PhoneNumberView {
  return {
    id: number.id,
    telephony_configuration_id: number.telephonyConfigurationId,
    address: number.address,
    address_normalized: number.addressNormalized,
    address_type: number.addressType,
    country_code: number.countryCode,
    label: number.label,
    inbound_workflow_id: number.inboundWorkflowId,
    inbound_workflow_name: inboundWorkflowName,
    is_active: number.isActive,
    is_default_caller_id: number.isDefaultCallerId,
    extra_metadata: number.extraMetadata,
    created_at: number.createdAt.toISOString(),
    updated_at: number.updatedAt.toISOString(),
  };
}
