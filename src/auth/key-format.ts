import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key secrets look like `syd_<32 base62 chars><6 base62 checksum chars>`: a fixed prefix and a
 * CRC32 checksum let secret scanners find leaked keys without false positives, and let us reject a
 * mistyped key without a database lookup. 24 random bytes give 192 bits of entropy.
 */
export const KEY_PREFIX = 'syd_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
/** How much of the secret the key list shows: enough to recognise, far too little to use. */
export const VISIBLE_PREFIX_LENGTH = KEY_PREFIX.length + 8;

export function generateKey(): string {
  const body = base62(randomBytes(24), BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

export function isWellFormedKey(candidate: string): boolean {
  if (!KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return candidate.endsWith(checksum(body));
}

/**
 * The one-shot hash, not a Hash object: every request with a key hashes it (the key cache is by hash),
 * and making the object was most of the cost (1.2-2.4 µs against 0.5-0.9 µs here).
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

function checksum(body: string): string {
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return base62(crc, CHECKSUM_LENGTH);
}

function base62(bytes: Buffer, length: number): string {
  let value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}
