import type { LookupFunction } from 'node:net';
import { checkedAddress, pinnedLookup, type AddressPolicy } from '../../../platform/address-guard';
import { guardedFetch } from '../../../platform/guarded-fetch';
import type { ProviderContext } from '../../provider';
import type { AriConfig } from './config';

/** The operator setting that lets ARI endpoints be private addresses (most PBXs sit on a LAN). */
export const ARI_PRIVATE_SETTING = 'ALLOW_PRIVATE_ARI_ENDPOINTS';

export const ariEndpointPolicy = (allowPrivate: boolean): AddressPolicy => ({
  allowPrivate,
  allowSetting: ARI_PRIVATE_SETTING,
});

/** Largest ARI event the worker reads; events are small JSON documents. */
export const ARI_MAX_EVENT_BYTES = 256 * 1024;

/** Users paste the HTTP server origin or the ARI base; paths add `/ari` themselves. */
export function ariOrigin(config: AriConfig, context: ProviderContext): string {
  return (context.apiBaseUrl ?? config.ari_endpoint).replace(/\/+$/, '').replace(/\/ari$/, '');
}

/**
 * The context ARI's REST calls go through. `ari_endpoint` is a tenant's URL, so its requests pass
 * the address guard (checked addresses, pinned connection, capped answers); an operator's
 * `apiBaseUrl` or a given `fetch` is used as it is.
 */
export function guardedAriContext(context: ProviderContext): ProviderContext {
  if (context.apiBaseUrl !== undefined || context.fetch !== undefined) return context;
  return { ...context, fetch: guardedFetch(context.endpointPolicy ?? ariEndpointPolicy(false)) };
}

/** The `lookup` the events WebSocket connects with: the checked address of the tenant's host. */
export async function ariSocketLookup(url: URL, context: ProviderContext): Promise<LookupFunction | undefined> {
  if (context.apiBaseUrl !== undefined) return undefined;
  return pinnedLookup(await checkedAddress(url.hostname, context.endpointPolicy ?? ariEndpointPolicy(false)));
}
