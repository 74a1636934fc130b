import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a URL a user gave (a webhook, an advisory source) may lead. Only addresses ipaddr.js classifies as global unicast pass: loopback,
 * private, link-local (with the 169.254.169.254 metadata service), unique-local (fd00:ec2::254),
 * CGNAT (100.100.100.200), multicast, unspecified, reserved, and IPv6 forms that embed an IPv4
 * address (mapped, NAT64, 6to4, Teredo) are all refused. IPv4-mapped IPv6 is judged as its IPv4.
 * IPv6 must also lie in 2000::/3, the only block assigned for global unicast: ipaddr.js calls the
 * deprecated IPv4-compatible form (::127.0.0.1, ::7f00:1) unicast too.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

/** The URL's host as an IP literal (IPv6 without brackets), or null for a name. */
export function literalHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : null;
}

/**
 * A DNS lookup for the HTTP client that refuses non-public addresses. The socket connects to the
 * address returned here, the one that was checked, so a name re-bound between check and connect
 * cannot switch it.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => isPublicAddress(a.address));
      if (usable.length === 0) {
        // Not which: the error reaches the hook's deliveries, and the server's DNS is not theirs to map.
        const refused = new AddressRefused(`${hostname} resolves only to non-public addresses`);
        return callback(Object.assign(refused, { code: 'EADDRREFUSED' }), '', 0);
      }
      if (options.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
