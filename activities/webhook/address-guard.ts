import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { WebhookRefusedError } from './errors';

/**
 * Server-side request forgery guard for post-call webhooks: a URL may only reach globally routable
 * addresses. ipaddr.js names every special range (private, loopback, link-local, CGNAT, multicast,
 * unspecified, unique-local, 6to4, NAT64...); only its plain `unicast` range is public. IPv4-mapped
 * IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // `process` turns an IPv4-mapped IPv6 address into its IPv4 address; zone ids (`fe80::1%eth0`) are kept out.
  const parsed = ipaddr.process(address.split('%')[0] ?? address);
  return parsed.range() === 'unicast';
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Every address the system resolver gives for the name (A and AAAA, as `getaddrinfo` would). */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

export interface AddressPolicy {
  /** `ALLOW_PRIVATE_WEBHOOKS`: internal addresses are allowed too (tests, trusted networks). */
  allowPrivate: boolean;
  resolve?: Resolver;
}

/**
 * The address to connect to for `hostname`. Every resolved address must be public, not only the
 * first: a name answering with one public and one private address is refused, since a later
 * connection could pick either. The caller connects to the returned address (pinned), so a second
 * DNS answer (rebinding) never reaches the socket.
 */
export async function checkedAddress(hostname: string, policy: AddressPolicy): Promise<LookupAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  let addresses: LookupAddress[];
  if (family !== 0) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (error) {
      throw new WebhookRefusedError(`${host} does not resolve: ${(error as Error).message}`);
    }
  }
  const [first] = addresses;
  if (!first) throw new WebhookRefusedError(`${host} does not resolve`);
  if (!policy.allowPrivate) {
    const internal = addresses.find(({ address }) => !isPublicAddress(address));
    if (internal) {
      throw new WebhookRefusedError(
        `${host} resolves to ${internal.address}, a private or reserved address (set ALLOW_PRIVATE_WEBHOOKS=true to allow it)`,
      );
    }
  }
  return first;
}
