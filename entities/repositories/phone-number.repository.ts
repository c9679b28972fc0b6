import { In, type DataSource, type DeepPartial, type EntityManager } from 'typeorm';
import type { NumberForReadiness } from '../../telephony/provider';
import { Agent } from '../agent.entity';
import { PhoneNumber } from '../phone-number.entity';
import { repositoryOver } from './repository';

/** The reads and writes of a telephony configuration's phone numbers, with the names of their inbound agents. */
export function phoneNumberStatements(manager: EntityManager) {
  const rows = manager.getRepository(PhoneNumber);
  return {
    build(fields: DeepPartial<PhoneNumber>): PhoneNumber {
      return rows.create(fields);
    },

    /** The configuration's numbers, oldest first. */
    listOf(telephonyConfigurationId: number): Promise<PhoneNumber[]> {
      return rows.find({ where: { telephonyConfigurationId }, order: { createdAt: 'ASC', id: 'ASC' } });
    },

    /** The number with that id of that configuration and organization; null otherwise. */
    findIn(organizationId: number, telephonyConfigurationId: number, id: number): Promise<PhoneNumber | null> {
      return rows.findOneBy({ id, telephonyConfigurationId, organizationId });
    },

    /** The organization's number at that (normalized) address; null when there is none. */
    findByAddress(organizationId: number, addressNormalized: string): Promise<PhoneNumber | null> {
      return rows.findOneBy({ organizationId, addressNormalized });
    },

    save(row: PhoneNumber): Promise<PhoneNumber> {
      return rows.save(row);
    },

    async clearDefaultCaller(telephonyConfigurationId: number): Promise<void> {
      await rows.update({ telephonyConfigurationId, isDefaultCallerId: true }, { isDefaultCallerId: false });
    },

    /** Marks the number as its configuration's default caller id and reads it back. */
    async markDefaultCaller(id: number): Promise<PhoneNumber> {
      await rows.update({ id }, { isDefaultCallerId: true });
      return rows.findOneByOrFail({ id });
    },

    async delete(id: number): Promise<void> {
      await rows.delete({ id });
    },

    /** The numbers of these configurations, as a provider judges its readiness to dial. */
    readinessOf(telephonyConfigurationIds: number[]): Promise<(NumberForReadiness & { configuration_id: number })[]> {
      return manager.query<(NumberForReadiness & { configuration_id: number })[]>(
        `SELECT telephony_configuration_id AS configuration_id, address, is_active AS "isActive",
            is_default_caller_id AS "isDefaultCallerId"
       FROM phone_numbers WHERE telephony_configuration_id = ANY ($1)`,
        [telephonyConfigurationIds],
      );
    },

    /** The names of the numbers' inbound agents. */
    inboundAgentNames(agentIds: number[]): Promise<Pick<Agent, 'id' | 'name'>[]> {
      return manager.getRepository(Agent).find({ where: { id: In(agentIds) }, select: { id: true, name: true } });
    },

    /** The name of a number's inbound agent; null when the agent is gone. */
    async inboundAgentName(agentId: number): Promise<string | null> {
      const agent = await manager.getRepository(Agent).findOne({ where: { id: agentId }, select: { name: true } });
      return agent?.name ?? null;
    },
  };
}

export type PhoneNumberStatements = ReturnType<typeof phoneNumberStatements>;

export const createPhoneNumberRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, phoneNumberStatements);

export type PhoneNumberRepository = ReturnType<typeof createPhoneNumberRepository>;
