import type { ProviderDefinition } from '../../provider';
import { createSimulatorProvider } from './adapter';
import { simulatorConfigSchema, simulatorFields, type SimulatorConfig } from './config';
import { simulatorInbound } from './inbound';

export const simulatorProvider: ProviderDefinition<SimulatorConfig> = {
  name: 'simulator',
  displayName: 'Simulator',
  docsUrl: 'docs/guides/simulator.md',
  connectivity: 'api',
  configSchema: simulatorConfigSchema,
  fields: simulatorFields,
  // A virtual carrier without a rate limit of its own: paced only when configured.
  defaultCallsPerSecond: null,
  transferModes: ['blind', 'warm'],
  create: (config, context) => createSimulatorProvider(config, context),
  inbound: simulatorInbound,
};
