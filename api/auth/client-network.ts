import ipaddr from 'ipaddr.js';

/** Bits of an IPv6 address that name one client: a /64 is the smallest block a site is routed. */
const IPV6_CLIENT_PREFIX = 64;

/**
 * The network a client address stands for when attempts are counted: an IPv4 address itself
 * (an IPv4-mapped IPv6 address counts as the IPv4 address it carries), and for IPv6 its /64, since
 * one subscriber is usually given a whole /64 and could change address with every request.
 */
export function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const bytes = parsed.toByteArray();
  bytes.fill(0, IPV6_CLIENT_PREFIX / 8);
  return `${ipaddr.fromByteArray(bytes).toString()}/${IPV6_CLIENT_PREFIX}`;
}
