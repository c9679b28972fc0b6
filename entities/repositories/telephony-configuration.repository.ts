import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import { Campaign } from '../campaign.entity';
import { TelephonyConfiguration } from '../telephony-configuration.entity';
import { repositoryOver } from './repository';

/** A configuration as the doctor checks it: its credentials still sealed. */
export interface ConfigurationToCheck {
  id: number;
  organization_id: number;
  name: string;
  provider: string;
  credentials: Record<string, unknown>;
}

/** The reads and writes of telephony configurations. */
export function telephonyConfigurationStatements(manager: EntityManager) {
  const rows = manager.getRepository(TelephonyConfiguration);
  return {
    build(fields: DeepPartial<TelephonyConfiguration>): TelephonyConfiguration {
      return rows.create(fields);
    },

    /** The organization's configurations, oldest first. */
    listOf(organizationId: number): Promise<TelephonyConfiguration[]> {
      return rows.find({ where: { organizationId }, order: { createdAt: 'ASC', id: 'ASC' } });
    },

    /** The organization's configuration with that id; null when it is missing or another organization's. */
    findOwned(organizationId: number, id: number): Promise<TelephonyConfiguration | null> {
      return rows.findOneBy({ id, organizationId });
    },

    findById(id: number): Promise<TelephonyConfiguration | null> {
      return rows.findOneBy({ id });
    },

    save(row: TelephonyConfiguration): Promise<TelephonyConfiguration> {
      return rows.save(row);
    },

    async clearDefaultOutbound(organizationId: number): Promise<void> {
      await rows.update({ organizationId, isDefaultOutbound: true }, { isDefaultOutbound: false });
    },

    /** Marks the configuration as its organization's default and reads it back. */
    async markDefaultOutbound(id: number): Promise<TelephonyConfiguration> {
      await rows.update({ id }, { isDefaultOutbound: true });
      return rows.findOneByOrFail({ id });
    },

    isUsedByCampaign(id: number): Promise<boolean> {
      return manager.existsBy(Campaign, { telephonyConfigurationId: id });
    },

    async delete(id: number): Promise<void> {
      await rows.delete({ id });
    },

    /** Every organization's configurations but the simulator's, by organization and id: what the doctor checks. */
    realProviderConfigurations(): Promise<ConfigurationToCheck[]> {
      return manager.query<ConfigurationToCheck[]>(
        `SELECT id, organization_id, name, provider, credentials FROM telephony_configurations
      WHERE provider <> 'simulator' ORDER BY organization_id, id`,
      );
    },
  };
}

export type TelephonyConfigurationStatements = ReturnType<typeof telephonyConfigurationStatements>;

export const createTelephonyConfigurationRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, telephonyConfigurationStatements);

export type TelephonyConfigurationRepository = ReturnType<typeof createTelephonyConfigurationRepository>;
