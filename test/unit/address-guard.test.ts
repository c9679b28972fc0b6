import { AddressRefusedError, checkedAddress, isPublicAddress, type Resolver } from '../../platform/address-guard';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:81c::200e'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
  ])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['fc00::1', 'IPv6 unique local'],
    ['fd12:3456::1', 'IPv6 unique local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:808:808::1', '6to4 (refused whatever it carries)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['::7f00:1', 'IPv4-compatible loopback, hex form'],
    ['::127.0.0.1', 'IPv4-compatible loopback, dotted form'],
    ['[::127.0.0.1]', 'IPv4-compatible loopback, bracketed'],
    ['::8.8.8.8', 'IPv4-compatible (the whole ::/96 is refused)'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['fec0::1', 'IPv6 site-local'],
    ['100::1', 'IPv6 discard-only'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['4000::1', 'outside 2000::/3'],
    ['0177.0.0.1', 'octal IPv4 form'],
    ['not-an-address', 'not an address'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

const resolverOf =
  (answers: Record<string, string[]>): Resolver =>
  (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${hostname}`));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };

describe('checkedAddress', () => {
  const refuse = { allowPrivate: false };

  it('refuses names that resolve to loopback through the system resolver (localhost)', async () => {
    await expect(checkedAddress('localhost', refuse)).rejects.toThrow(AddressRefusedError);
    await expect(checkedAddress('localhost', refuse)).rejects.toThrow(/private or reserved address/);
  });

  it('refuses IP literals, bracketed IPv6 included, without resolving them', async () => {
    const resolve = jest.fn(resolverOf({}));
    await expect(checkedAddress('127.0.0.1', { ...refuse, resolve })).rejects.toThrow(AddressRefusedError);
    await expect(checkedAddress('[::1]', { ...refuse, resolve })).rejects.toThrow(AddressRefusedError);
    await expect(checkedAddress('[::ffff:127.0.0.1]', { ...refuse, resolve })).rejects.toThrow(AddressRefusedError);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('checks every resolved address, not only the first', async () => {
    const resolve = resolverOf({ 'mixed.example': ['93.184.216.34', '10.0.0.5'] });
    await expect(checkedAddress('mixed.example', { ...refuse, resolve })).rejects.toThrow(/10\.0\.0\.5/);
  });

  it('refuses a name whose AAAA answer is an IPv4-mapped private address', async () => {
    const resolve = resolverOf({ 'mapped.example': ['::ffff:192.168.0.10'] });
    await expect(checkedAddress('mapped.example', { ...refuse, resolve })).rejects.toThrow(AddressRefusedError);
  });

  it('answers the first address of a public name, to pin the connection to it', async () => {
    const resolve = resolverOf({ 'hooks.example': ['93.184.216.34', '2606:2800:220:1::248'] });
    await expect(checkedAddress('hooks.example', { ...refuse, resolve })).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('refuses a name that does not resolve', async () => {
    await expect(checkedAddress('nowhere.example', { ...refuse, resolve: resolverOf({}) })).rejects.toThrow(
      /does not resolve/,
    );
  });

  it('allows private addresses when ALLOW_PRIVATE_WEBHOOKS is set', async () => {
    await expect(checkedAddress('127.0.0.1', { allowPrivate: true })).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    const local = await checkedAddress('localhost', { allowPrivate: true });
    expect(isPublicAddress(local.address)).toBe(false);
  });
});
