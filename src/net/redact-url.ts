// Shared by the request log (http/) and the logs of what the service fetches (advisory sources).

/** Query parameters whose values are secrets: OAuth codes and states, SAML sign-in tickets, badge tokens, keys, and whatever says it is one. */
const SECRET_NAME = /^(?:code|state|sig|ticket)$|token|key|secret|passw|signature|credential|authorization/i;

/**
 * Request URLs as logged, with the values of secret query parameters masked. Names are judged
 * decoded, as the query parser reads them (`?%74oken=` is `token`); one that cannot be decoded is
 * masked too.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    return equals >= 0 && secretName(pair.slice(0, equals)) ? `${pair.slice(0, equals)}=[redacted]` : pair;
  });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

function secretName(raw: string): boolean {
  try {
    return SECRET_NAME.test(decodeURIComponent(raw.replace(/\+/g, ' ')));
  } catch {
    return true;
  }
}
