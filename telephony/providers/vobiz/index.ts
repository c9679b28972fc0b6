import type { ProviderDefinition } from '../../provider';
import {
  plivoCompatibleConfigSchema,
  plivoCompatibleFields,
  type PlivoCompatibleConfig,
} from '../plivo-compatible/config';
import { plivoCompatibleInbound } from '../plivo-compatible/markup';
import { createVobizProvider } from './adapter';

export const vobizProvider: ProviderDefinition<PlivoCompatibleConfig> = {
  name: 'vobiz',
  displayName: 'Vobiz',
  docsUrl: 'https://docs.vobiz.ai',
  connectivity: 'api',
  configSchema: plivoCompatibleConfigSchema,
  fields: plivoCompatibleFields('Vobiz'),
  // Vobiz documents no default account rate: one call per second until configured.
  defaultCallsPerSecond: 1,
  transferModes: ['blind', 'warm'],
  create: createVobizProvider,
  inbound: plivoCompatibleInbound('Vobiz'),
};
