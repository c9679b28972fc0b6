import type { DataSource } from 'typeorm';
import type { PhoneNumber } from '../../entities';
import { createPhoneNumberRepository } from '../../entities/repositories/phone-number.repository';
import type { ProviderSync } from '../../telephony/provider';
import type { PhoneNumberView } from './types';

/** Phone numbers as answered, each with the name of its inbound agent. */
export async function phoneNumberViews(dataSource: DataSource, numbers: PhoneNumber[]): Promise<PhoneNumberView[]> {
  const agentIds = [...new Set(numbers.flatMap((number) => number.inboundWorkflowId ?? []))];
  const agents = agentIds.length ? await createPhoneNumberRepository(dataSource).inboundAgentNames(agentIds) : [];
  const names = new Map(agents.map((agent) => [agent.id, agent.name]));
  return numbers.map((number) => phoneNumberView(number, names.get(number.inboundWorkflowId ?? 0) ?? null));
}

export async function phoneNumberViewOf(
  dataSource: DataSource,
  number: PhoneNumber,
  providerSync?: ProviderSync,
): Promise<PhoneNumberView> {
  const agentName = number.inboundWorkflowId
    ? await createPhoneNumberRepository(dataSource).inboundAgentName(number.inboundWorkflowId)
    : null;
  return { ...phoneNumberView(number, agentName), ...(providerSync ? { provider_sync: providerSync } : {}) };
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
