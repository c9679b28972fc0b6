import type { DataSource } from 'typeorm';
import type { PhoneNumber, TelephonyConfiguration } from '../../entities';
import { isUniqueViolation } from '../../entities/db-errors';
import { createAgentRepository, type AgentRepository } from '../../entities/repositories/agent.repository';
import {
  createPhoneNumberRepository,
  type PhoneNumberRepository,
} from '../../entities/repositories/phone-number.repository';
import { ProviderError, type ProviderSync } from '../../telephony/provider';
import type { Actor } from '../actor';
import { ConflictError, InvalidError, NotFoundError, UpstreamError } from '../errors';
import type { Quotas } from '../quotas';
import { normalizeAddress } from './phone-address';
import { phoneNumberViewOf, phoneNumberViews } from './phone-number-views';
import type { TelephonyConfigurations } from './telephony-configurations';
import type { TelephonyServices } from './telephony-services';
import type { PhoneNumberView } from './types';

export const PHONE_NUMBER_NOT_FOUND = 'Phone number not found';
const ADDRESS_CONSTRAINT = 'phone_numbers_organization_id_address_normalized_key';
const UNCHANGED: ProviderSync = { ok: true, message: 'Inbound routing unchanged: the provider was not contacted.' };

export interface NewPhoneNumber {
  address: string;
  country_code?: string | null;
  label?: string | null;
  inbound_workflow_id?: number | null;
  is_active: boolean;
  is_default_caller_id: boolean;
  extra_metadata: Record<string, unknown>;
}

/** A PUT: fields not sent keep their value; `address` may only be sent unchanged. */
export interface PhoneNumberChanges {
  address?: string;
  country_code?: string | null;
  label?: string | null;
  inbound_workflow_id?: number | null;
  clear_inbound_workflow?: boolean;
  is_active?: boolean;
  extra_metadata?: Record<string, unknown>;
}

/**
 * The phone numbers of a telephony configuration: one default caller id per configuration, a quota
 * on how many, and the provider's inbound routing kept pointing at Switchboard for bound numbers.
 */
export class PhoneNumbers {
  private readonly numbers: PhoneNumberRepository;
  private readonly agents: AgentRepository;

  constructor(
    private readonly dataSource: DataSource,
    private readonly telephony: TelephonyServices,
    private readonly configurations: TelephonyConfigurations,
    private readonly quotas: Quotas,
  ) {
    this.numbers = createPhoneNumberRepository(dataSource);
    this.agents = createAgentRepository(dataSource);
  }

  /** Oldest first; 404 when the configuration is unknown or another organization's. */
  async list(caller: Actor, configurationId: number): Promise<PhoneNumberView[]> {
    const configuration = await this.configurations.find(caller, configurationId);
    return phoneNumberViews(this.dataSource, await this.numbers.listOf(configuration.id));
  }

  async view(caller: Actor, configurationId: number, id: number): Promise<PhoneNumberView> {
    const { number } = await this.find(caller, configurationId, id);
    return phoneNumberViewOf(this.dataSource, number);
  }

  /** A bound number is pointed at Switchboard at the provider; `provider_sync` says how that went. */
  async create(caller: Actor, configurationId: number, input: NewPhoneNumber): Promise<PhoneNumberView> {
    const configuration = await this.configurations.find(caller, configurationId);
    const { addressNormalized, addressType } = normalizeAddress(input.address, input.country_code);
    if (input.inbound_workflow_id) await this.requireAgent(caller, input.inbound_workflow_id);
    const row = this.numbers.build({
      organizationId: caller.organizationId,
      telephonyConfigurationId: configuration.id,
      address: input.address,
      addressNormalized,
      addressType,
      countryCode: input.country_code ?? null,
      label: input.label ?? null,
      inboundWorkflowId: input.inbound_workflow_id ?? null,
      isActive: input.is_active,
      isDefaultCallerId: input.is_default_caller_id,
      extraMetadata: input.extra_metadata,
    });
    let saved: PhoneNumber;
    try {
      saved = await this.numbers.transaction(async (numbers, manager) => {
        if (row.isDefaultCallerId) await numbers.clearDefaultCaller(configuration.id);
        const inserted = await numbers.save(row);
        await this.quotas.claim(manager, 'phone_numbers', caller.organizationId);
        return inserted;
      });
    } catch (error) {
      if (isUniqueViolation(error, ADDRESS_CONSTRAINT)) {
        throw new ConflictError('A phone number with this address already exists in the org.');
      }
      throw error;
    }
    const target = this.inboundTarget(configuration, saved);
    const providerSync = target ? await this.pushInbound(configuration, saved, target) : undefined;
    return phoneNumberViewOf(this.dataSource, saved, providerSync);
  }

  /** When the inbound routing changes (binding or `is_active`), the provider is updated. */
  async update(
    caller: Actor,
    configurationId: number,
    id: number,
    changes: PhoneNumberChanges,
  ): Promise<PhoneNumberView> {
    const { configuration, number } = await this.find(caller, configurationId, id);
    if (changes.address !== undefined && changes.address.trim() !== number.address) {
      throw new InvalidError('The address of a phone number cannot be changed; delete it and add the new one.');
    }
    const before = this.inboundTarget(configuration, number);
    if (changes.clear_inbound_workflow) {
      number.inboundWorkflowId = null;
    } else if (changes.inbound_workflow_id) {
      await this.requireAgent(caller, changes.inbound_workflow_id);
      number.inboundWorkflowId = changes.inbound_workflow_id;
    }
    if (changes.label !== undefined) number.label = changes.label;
    if (changes.country_code !== undefined) number.countryCode = changes.country_code;
    if (changes.is_active !== undefined) number.isActive = changes.is_active;
    if (changes.extra_metadata !== undefined) number.extraMetadata = changes.extra_metadata;
    const saved = await this.numbers.save(number);
    const after = this.inboundTarget(configuration, saved);
    const providerSync = before === after ? UNCHANGED : await this.pushInbound(configuration, saved, after);
    return phoneNumberViewOf(this.dataSource, saved, providerSync);
  }

  /** A bound number is first detached at the provider; when that fails (502) nothing is deleted. */
  async delete(caller: Actor, configurationId: number, id: number): Promise<ProviderSync> {
    const { configuration, number } = await this.find(caller, configurationId, id);
    let providerSync: ProviderSync = { ok: true, message: 'No inbound binding: the provider was not contacted.' };
    if (this.inboundTarget(configuration, number)) {
      providerSync = await this.pushInbound(configuration, number, null);
      if (!providerSync.ok) throw new UpstreamError(providerSync.message);
    }
    await this.numbers.delete(number.id);
    return providerSync;
  }

  /** The previous default of the configuration is cleared in the same transaction. */
  async setDefaultCaller(caller: Actor, configurationId: number, id: number): Promise<PhoneNumberView> {
    const { configuration, number } = await this.find(caller, configurationId, id);
    const updated = await this.numbers.transaction(async (numbers) => {
      await numbers.clearDefaultCaller(configuration.id);
      return numbers.markDefaultCaller(number.id);
    });
    return phoneNumberViewOf(this.dataSource, updated);
  }

  private async find(
    caller: Actor,
    configurationId: number,
    id: number,
  ): Promise<{ configuration: TelephonyConfiguration; number: PhoneNumber }> {
    const configuration = await this.configurations.find(caller, configurationId);
    const number = await this.numbers.findIn(configuration.organizationId, configuration.id, id);
    if (!number) throw new NotFoundError(PHONE_NUMBER_NOT_FOUND);
    return { configuration, number };
  }

  private async requireAgent(caller: Actor, id: number): Promise<void> {
    if (!(await this.agents.existsOwned(caller.organizationId, id))) {
      throw new NotFoundError(`Workflow with id ${id} not found`);
    }
  }

  /** Where the number's inbound calls should go now: nowhere unless it is active and bound. */
  private inboundTarget(configuration: TelephonyConfiguration, number: PhoneNumber): string | null {
    return number.isActive && number.inboundWorkflowId !== null
      ? this.telephony.inboundUrl(configuration.provider)
      : null;
  }

  private async pushInbound(
    configuration: TelephonyConfiguration,
    number: PhoneNumber,
    url: string | null,
  ): Promise<ProviderSync> {
    try {
      return await this.telephony.adapterFor(configuration).configureInbound(number.addressNormalized, url);
    } catch (error) {
      if (error instanceof ProviderError) return { ok: false, message: error.message };
      throw error;
    }
  }
}
