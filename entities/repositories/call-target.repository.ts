import { In, type DataSource, type EntityManager } from 'typeorm';
import { Agent } from '../agent.entity';
import { AgentVersion } from '../agent-version.entity';
import { PhoneNumber } from '../phone-number.entity';
import { TelephonyConfiguration } from '../telephony-configuration.entity';
import { repositoryOver } from './repository';

/**
 * The reads of placing and taking a call, and of a campaign's route: the agent and version it runs, the telephony
 * configuration it goes through and that configuration's numbers (and the ARI configurations whose
 * events the worker listens to).
 */
export function callTargetStatements(manager: EntityManager) {
  const agents = manager.getRepository(Agent);
  const versions = manager.getRepository(AgentVersion);
  const configurations = manager.getRepository(TelephonyConfiguration);
  const numbers = manager.getRepository(PhoneNumber);
  return {
    /** The organization's agent with that Agent UUID (lower case); null otherwise. */
    agentByUuid(organizationId: number, workflowUuid: string): Promise<Agent | null> {
      return agents.findOneBy({ workflowUuid, organizationId });
    },

    /** The organization's agent with that id; null when it is missing or another organization's. */
    findOwnedAgent(organizationId: number, agentId: number): Promise<Agent | null> {
      return agents.findOneBy({ id: agentId, organizationId });
    },

    findAgent(agentId: number): Promise<Agent | null> {
      return agents.findOneBy({ id: agentId });
    },

    /** The agent's disposition codes (with its id); throws when there is no such agent. */
    dispositionCodesOf(agentId: number): Promise<Pick<Agent, 'id' | 'callDispositionCodes'>> {
      return agents.findOneOrFail({ where: { id: agentId }, select: { id: true, callDispositionCodes: true } });
    },

    /** The agent version with that id; null when there is none. */
    findVersion(id: number): Promise<AgentVersion | null> {
      return versions.findOneBy({ id });
    },

    /** The agent version with that id; throws when there is none. */
    getVersion(id: number): Promise<AgentVersion> {
      return versions.findOneByOrFail({ id });
    },

    /** The organization's default configuration for outbound calls; null when it has none. */
    defaultOutboundConfiguration(organizationId: number): Promise<TelephonyConfiguration | null> {
      return configurations.findOneBy({ organizationId, isDefaultOutbound: true });
    },

    /** The organization's configuration with that id; null when it is missing or another organization's. */
    findOwnedConfiguration(organizationId: number, id: number): Promise<TelephonyConfiguration | null> {
      return configurations.findOneBy({ id, organizationId });
    },

    /** The configurations of that provider among those ids, oldest first. */
    configurationsOfProvider(ids: number[], provider: string): Promise<TelephonyConfiguration[]> {
      return configurations.find({ where: { id: In(ids), provider }, order: { id: 'ASC' } });
    },

    /** The configuration's numbers, in the order they were added. */
    numbersOf(telephonyConfigurationId: number): Promise<PhoneNumber[]> {
      return numbers.find({ where: { telephonyConfigurationId }, order: { id: 'ASC' } });
    },

    /** Every organization's numbers at that (normalized) address, in the order they were added. */
    numbersAt(addressNormalized: string): Promise<PhoneNumber[]> {
      return numbers.find({ where: { addressNormalized }, order: { id: 'ASC' } });
    },

    /** The configuration's active number at that (normalized) address; null when there is none. */
    findActiveNumber(telephonyConfigurationId: number, addressNormalized: string): Promise<PhoneNumber | null> {
      return numbers.findOneBy({ telephonyConfigurationId, addressNormalized, isActive: true });
    },

    /** The ARI configurations, which the worker's ARI listener holds a connection to each of. */
    ariConfigurations(): Promise<TelephonyConfiguration[]> {
      return configurations.findBy({ provider: 'ari' });
    },

    /** How many ARI configurations there are and when one last changed: the listener's cheap change probe. */
    async ariConfigurationsState(): Promise<{ n: number; at: Date | null } | undefined> {
      const [row] = await manager.query<{ n: number; at: Date | null }[]>(
        `SELECT count(*)::int AS n, max(updated_at) AS at FROM telephony_configurations WHERE provider = 'ari'`,
      );
      return row;
    },

    /** The configuration's number at that (normalized) address; null when it has none. */
    numberOfConfiguration(telephonyConfigurationId: number, addressNormalized: string): Promise<PhoneNumber | null> {
      return numbers.findOneBy({ telephonyConfigurationId, addressNormalized });
    },
  };
}

export const createCallTargetRepository = (dataSource: DataSource) => repositoryOver(dataSource, callTargetStatements);

export type CallTargetRepository = ReturnType<typeof createCallTargetRepository>;
