import type { Config } from '../platform/config';
import { openCredentials } from './credentials';
import type { ProviderContext, ProviderDefinition, TelephonyProvider } from './provider';
import { ariProvider } from './providers/ari';
import { cloudonixProvider } from './providers/cloudonix';
import { plivoProvider } from './providers/plivo';
import { simulatorProvider } from './providers/simulator';
import { telnyxProvider } from './providers/telnyx';
import { twilioProvider } from './providers/twilio';
import { vobizProvider } from './providers/vobiz';
import { vonageProvider } from './providers/vonage';
import type { Secrets } from './secrets';

// Each definition is typed by its own config; the registry handles them by name, config unknown.
const asDefinition = <Config extends Record<string, unknown>>(definition: ProviderDefinition<Config>) =>
  definition as unknown as ProviderDefinition;

/** Every provider, sorted by name. */
export const providerDefinitions: readonly ProviderDefinition[] = [
  asDefinition(ariProvider),
  asDefinition(cloudonixProvider),
  asDefinition(plivoProvider),
  asDefinition(simulatorProvider),
  asDefinition(telnyxProvider),
  asDefinition(twilioProvider),
  asDefinition(vobizProvider),
  asDefinition(vonageProvider),
];

/** The providers this deployment offers: the simulator only when TELEPHONY_SIMULATOR is on. */
export function availableProviders(config: Pick<Config, 'TELEPHONY_SIMULATOR'>): ProviderDefinition[] {
  return providerDefinitions.filter((definition) => definition.name !== 'simulator' || config.TELEPHONY_SIMULATOR);
}

export function providerDefinition(name: string): ProviderDefinition | undefined {
  return providerDefinitions.find((definition) => definition.name === name);
}

/** What `providerFor` reads from a telephony configuration row. */
export interface ConfigurationRow {
  provider: string;
  credentials: Record<string, unknown>;
}

/**
 * The adapter for a stored configuration: the only place its secrets are decrypted. The stored
 * fields are parsed again, so defaults added since the row was written apply.
 */
export function providerFor(row: ConfigurationRow, secrets: Secrets, context: ProviderContext = {}): TelephonyProvider {
  const definition = providerDefinition(row.provider);
  if (!definition) throw new Error(`Unknown telephony provider: ${row.provider}`);
  const config = definition.configSchema.parse(openCredentials(row.credentials, secrets));
  return definition.create(config, { ...context, secrets });
}
