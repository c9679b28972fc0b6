import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import { PhoneNumber } from '../phone-number.entity';
import { repositoryOver } from './repository';

/** The reads and writes of a telephony configuration's phone numbers. */
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
  };
}

export type PhoneNumberStatements = ReturnType<typeof phoneNumberStatements>;

export const createPhoneNumberRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, phoneNumberStatements);

export type PhoneNumberRepository = ReturnType<typeof createPhoneNumberRepository>;
