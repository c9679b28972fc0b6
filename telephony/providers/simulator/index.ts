import type { ProviderDefinition } from '../../provider';
import { createSimulatorProvider } from './adapter';
import { simulatorConfigSchema, simulatorFields, type SimulatorConfig } from './config';

export const simulatorProvider: ProviderDefinition<SimulatorConfig> = {
  name: 'simulator',
  displayName: 'Simulator',
  docsUrl: 'README.md#telephony-simulator',
  connectivity: 'api',
  configSchema: simulatorConfigSchema,
  fields: simulatorFields,
  create: (config, context) => createSimulatorProvider(config, context),
};
