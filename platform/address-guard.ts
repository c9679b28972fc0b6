import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard for every connection a tenant's URL opens (post-call webhooks,
 * ARI servers): a URL may only reach globally routable addresses unless the operator allows
 * private ones.
 */

/** The address is internal or reserved, or the name does not resolve: trying again will not help. */
export class AddressRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefusedError';
  }
}

const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::').toByteArray();
/** NAT64's well-known prefix (RFC 6052): the last 32 bits are an IPv4 address, judged as such. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  // ipaddr.js names every special range (private, loopback, link-local, CGNAT, multicast, broadcast,
  // reserved...); only its plain `unicast` range is public.
  return address.range() === 'unicast';
}

/**
 * IPv6 is allowed only inside 2000::/3 (global unicast) and outside every special range ipaddr.js
 * knows (6to4, Teredo, documentation, ORCHID...). That refuses `::/96` (`::7f00:1` is 127.0.0.1),
 * unique-local, link-local, site-local and multicast by construction, whatever notation they come
 * in. IPv4-mapped and NAT64 addresses are judged as the IPv4 address they carry.
 */
function isPublicIPv6(address: ipaddr.IPv6): boolean {
  if (address.isIPv4MappedAddress()) return isPublicIPv4(address.toIPv4Address());
  if (address.match(NAT64)) {
    const bytes = address.toByteArray().slice(12);
    return isPublicIPv4(new ipaddr.IPv4(bytes));
  }
  const [first = 0] = address.toByteArray();
  if ((first & 0xe0) !== (GLOBAL_UNICAST[0] ?? 0x20)) return false;
  return address.range() === 'unicast';
}

/** Whether `address` (an IP literal, zone id allowed) is globally routable. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  // Only canonical literals: `isIP` refuses the octal and hex IPv4 forms that ipaddr.js would parse.
  if (isIP(bare) === 0) return false;
  if (isIP(bare) === 4) return isPublicIPv4(ipaddr.IPv4.parse(bare));
  // ipaddr.js reads a dotted tail (`::8.8.8.8`, IPv4-compatible) as IPv4-mapped (`::ffff:8.8.8.8`);
  // the URL parser writes every IPv6 address in plain hex first, so no notation changes the verdict.
  const hex = new URL(`http://[${bare}]/`).hostname.replace(/^\[|\]$/g, '');
  return isPublicIPv6(ipaddr.IPv6.parse(hex));
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
  /** The operator allows internal addresses too (tests, trusted networks). */
  allowPrivate: boolean;
  /** The setting that allows them, named in refusals (`ALLOW_PRIVATE_WEBHOOKS`). */
  allowSetting?: string;
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
      throw new AddressRefusedError(`${host} does not resolve: ${(error as Error).message}`);
    }
  }
  const [first] = addresses;
  if (!first) throw new AddressRefusedError(`${host} does not resolve`);
  if (!policy.allowPrivate) {
    const internal = addresses.find(({ address }) => !isPublicAddress(address));
    if (internal) {
      throw new AddressRefusedError(
        `${host} resolves to ${internal.address}, a private or reserved address (set ${policy.allowSetting ?? 'ALLOW_PRIVATE_WEBHOOKS'}=true to allow it)`,
      );
    }
  }
  return first;
}

/** A `lookup` for `http.request`, `net.connect` and `ws` that answers only the checked address. */
export function pinnedLookup(pinned: LookupAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}
