import type { ProviderDefinition } from '../../provider';
import {
  plivoCompatibleConfigSchema,
  plivoCompatibleFields,
  type PlivoCompatibleConfig,
} from '../plivo-compatible/config';
import { plivoCompatibleInbound } from '../plivo-compatible/markup';
import { createPlivoProvider } from './adapter';

export const plivoProvider: ProviderDefinition<PlivoCompatibleConfig> = {
  name: 'plivo',
  displayName: 'Plivo',
  docsUrl: 'https://www.plivo.com/docs/voice/api/call',
  connectivity: 'api',
  configSchema: plivoCompatibleConfigSchema,
  fields: plivoCompatibleFields('Plivo'),
  // Plivo's default outbound limit is 2 calls per second per account.
  defaultCallsPerSecond: 2,
  transferModes: ['blind', 'warm'],
  create: createPlivoProvider,
  inbound: plivoCompatibleInbound('Plivo'),
};
