import type { DataSource } from 'typeorm';
import type { TelephonyProvider, TelephonyTransfer } from '../../telephony/provider';
import { ariEndpointPolicy } from '../../telephony/providers/ari/endpoint';
import { createWebProvider } from '../../telephony/providers/web/adapter';
import { WEB_PROVIDER } from '../../telephony/providers/web/web-calls';
import { providerFor } from '../../telephony/registry';
import type { Secrets } from '../../telephony/secrets';
import { CallSetupError, ProviderRefusedError } from './call-errors';
import type { CallRecord } from './call-records';
import type { CallSettings } from './call-settings';

export interface CallProviderDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: Pick<CallSettings, 'telephonyApiBaseUrl' | 'allowPrivateAriEndpoints'>;
}

/** The telephony adapter that carries a run's call. */
export type CallProviderOf = (run: CallRecord) => TelephonyProvider;

/**
 * The adapter of a run's call: its telephony configuration's provider, or ours for a call from a
 * browser. A run without a configuration cannot be called.
 */
export function createCallProviderOf({ dataSource, secrets, settings }: CallProviderDeps): CallProviderOf {
  const webCalls = createWebProvider(dataSource);
  return (run) => {
    // A call from a browser has no telephony configuration: it is ours end to end.
    if (run.provider === WEB_PROVIDER) return webCalls;
    if (!run.configuration) throw new CallSetupError(`Run ${run.id} has no telephony configuration`);
    return providerFor(run.configuration, secrets, {
      apiBaseUrl: settings.telephonyApiBaseUrl,
      dataSource,
      endpointPolicy: ariEndpointPolicy(settings.allowPrivateAriEndpoints ?? false),
    });
  };
}

/** The provider's transfers; a provider that cannot transfer refuses. */
export function transferOf(provider: TelephonyProvider): TelephonyTransfer {
  if (!provider.transfer) throw new ProviderRefusedError('this telephony provider cannot transfer calls');
  return provider.transfer;
}
