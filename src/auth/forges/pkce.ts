import { createHash, randomBytes } from 'node:crypto';

/** RFC 7636: 32 random bytes give a 43-character base64url verifier; the challenge is its SHA-256. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function randomState(): string {
  return randomBytes(24).toString('base64url');
}
