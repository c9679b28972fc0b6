import type { TelephonyConfiguration } from '../../entities';
import { maskedCredentials } from '../../telephony/credentials';
import type { ProviderDefinition, TelephonyProvider } from '../../telephony/provider';
import { availableProviders, providerDefinition, providerFor, type ConfigurationRow } from '../../telephony/registry';
import { ariEndpointPolicy } from '../../telephony/providers/ari/endpoint';
import { loadSecrets, type Secrets } from '../../telephony/secrets';
import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';

/** A configuration as clients see it: its credentials masked. */
export interface ConfigurationView {
  id: number;
  name: string;
  provider: string;
  is_default_outbound: boolean;
  calls_per_second: number | null;
  effective_calls_per_second: number | null;
  credentials: ReturnType<typeof maskedCredentials>;
  created_at: string;
  updated_at: string;
}

export interface TelephonyServices {
  secrets: Secrets;
  /** The providers this deployment offers (the simulator only with TELEPHONY_SIMULATOR=true). */
  providers: ProviderDefinition[];
  definitionOf(row: Pick<TelephonyConfiguration, 'provider'>): ProviderDefinition;
  adapterFor(row: ConfigurationRow): TelephonyProvider;
  /** Where a provider sends inbound calls: `${PUBLIC_BASE_URL}/api/v1/telephony/{provider}/inbound`. */
  inboundUrl(provider: string): string;
  configurationView(row: TelephonyConfiguration): ConfigurationView;
}

export function createTelephonyServices({
  config,
  dataSource,
}: {
  config: Config;
  dataSource: DataSource;
}): TelephonyServices {
  const secrets = loadSecrets(config);
  const context = {
    apiBaseUrl: config.TELEPHONY_API_BASE_URL,
    dataSource,
    endpointPolicy: ariEndpointPolicy(config.ALLOW_PRIVATE_ARI_ENDPOINTS),
  };
  const definitionOf = (row: Pick<TelephonyConfiguration, 'provider'>) => {
    const definition = providerDefinition(row.provider);
    if (!definition) throw new Error(`Stored configuration has an unknown provider: ${row.provider}`);
    return definition;
  };
  return {
    secrets,
    providers: availableProviders(config),
    definitionOf,
    adapterFor: (row) => providerFor(row, secrets, context),
    inboundUrl: (provider) => `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api/v1/telephony/${provider}/inbound`,
    configurationView: (row) => ({
      id: row.id,
      name: row.name,
      provider: row.provider,
      is_default_outbound: row.isDefaultOutbound,
      calls_per_second: row.callsPerSecond,
      effective_calls_per_second: row.callsPerSecond ?? definitionOf(row).defaultCallsPerSecond,
      credentials: maskedCredentials(definitionOf(row), row.credentials, secrets),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    }),
  };
}
