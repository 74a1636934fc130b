import type { VersionScheme } from './types.js';

/**
 * Debian package versions, Debian Policy 5.6.12: `[epoch:]upstream[-revision]`, epochs compared as
 * numbers, then upstream and revision by dpkg's alternating non-digit/digit comparison in which `~`
 * sorts before anything, even the end of the string, and letters before other characters.
 */
interface DebianVersion {
  epoch: number;
  upstream: string;
  revision: string;
}

function split(version: string): DebianVersion | null {
  const colon = version.indexOf(':');
  const epochText = colon >= 0 ? version.slice(0, colon) : '0';
  if (!/^\d+$/.test(epochText)) return null;
  const rest = version.slice(colon + 1);
  const dash = rest.lastIndexOf('-');
  const upstream = dash >= 0 ? rest.slice(0, dash) : rest;
  const revision = dash >= 0 ? rest.slice(dash + 1) : '';
  if (!/^[0-9][A-Za-z0-9.+~:-]*$/.test(upstream) || !/^[A-Za-z0-9.+~]*$/.test(revision)) return null;
  if (dash >= 0 && revision === '') return null;
  return { epoch: Number(epochText), upstream, revision };
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function weight(c: string | undefined): number {
  if (c === undefined || isDigit(c)) return 0;
  if (c === '~') return -1;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const difference = weight(a[i]) - weight(b[j]);
      if (difference !== 0) return difference;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    let firstDifference = 0;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDifference === 0) firstDifference = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDifference !== 0) return firstDifference;
  }
  return 0;
}

export const dpkgScheme: VersionScheme = {
  valid: (version) => split(version) !== null,
  compare: (a, b) => {
    const left = split(a)!;
    const right = split(b)!;
    if (left.epoch !== right.epoch) return left.epoch - right.epoch;
    return verrevcmp(left.upstream, right.upstream) || verrevcmp(left.revision, right.revision);
  },
};
