import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a hook may point. Only addresses ipaddr.js classifies as global unicast pass: loopback,
 * private, link-local (with the 169.254.169.254 metadata service), unique-local (fd00:ec2::254),
 * CGNAT (100.100.100.200), multicast, unspecified, reserved, and IPv6 forms that embed an IPv4
 * address (mapped, NAT64, 6to4, Teredo) are all refused. IPv4-mapped IPv6 is judged as its IPv4.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

/** The URL's host as an IP literal (IPv6 without brackets), or null for a name. */
export function literalHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : null;
}

/**
 * Checks a hook URL as given (scheme and, for an IP literal, the address). Names are checked again
 * when delivering, after resolution, because what a name resolves to can change.
 */
export function checkHookUrl(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (allowPrivate) return null;
  const literal = literalHost(url);
  if (literal !== null && !isPublicAddress(literal)) return `points at a non-public address (${literal}); set SERVICE_WEBHOOK_ALLOW_PRIVATE=true to allow it`;
  if (literal === null && /^localhost$|\.localhost$/i.test(url.hostname.replace(/\.$/, ''))) return 'points at localhost; set SERVICE_WEBHOOK_ALLOW_PRIVATE=true to allow it';
  return null;
}

/** How long creating a hook waits for its name to resolve. */
const RESOLVE_TIMEOUT_MS = 3000;

/**
 * checkHookUrl, and for a name, what it resolves to now: a name that resolves only to non-public
 * addresses is refused at once. One that does not resolve (yet) is accepted; delivery checks again.
 */
export async function checkHookUrlResolved(
  raw: string, allowPrivate: boolean,
  resolve: (hostname: string) => Promise<dns.LookupAddress[]> = (hostname) => dns.promises.lookup(hostname, { all: true }),
): Promise<string | null> {
  const problem = checkHookUrl(raw, allowPrivate);
  if (problem || allowPrivate) return problem;
  const url = new URL(raw);
  if (literalHost(url) !== null) return null;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolve(url.hostname).catch(() => []),
    new Promise<dns.LookupAddress[]>((done) => {
      timer = setTimeout(() => done([]), RESOLVE_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  if (addresses.length > 0 && !addresses.some((a) => isPublicAddress(a.address))) {
    return `resolves only to non-public addresses (${addresses.map((a) => a.address).join(', ')}); set SERVICE_WEBHOOK_ALLOW_PRIVATE=true to allow it`;
  }
  return null;
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
        const refused = new AddressRefused(`${hostname} resolves only to non-public addresses (${list.map((a) => a.address).join(', ')})`);
        return callback(Object.assign(refused, { code: 'EADDRREFUSED' }), '', 0);
      }
      if (options.all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
