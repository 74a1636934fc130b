import dns from 'node:dns';
import { isPublicAddress, literalHost } from '../net/address.js';

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
    // Not which: the server's DNS is not the caller's to map.
    return 'resolves only to non-public addresses; set SERVICE_WEBHOOK_ALLOW_PRIVATE=true to allow it';
  }
  return null;
}
