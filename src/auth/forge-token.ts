import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals the forge access token a person signed in with, to keep beside their session: AES-256-GCM
 * under a key derived from the session secret (its own HKDF label, so it is not the cookie's key).
 * Only the forge link check opens it, to ask the forge whether that person administers an owner.
 */
export function forgeTokenSealer(sessionSecret: string | null) {
  const key = sessionSecret ? Buffer.from(hkdfSync('sha256', sessionSecret, 'scanyard', 'forge sign-in token v1', 32)) : null;
  return {
    seal(token: string): string | null {
      if (!key) return null;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    /** null for anything not sealed with this key (another secret, tampered, absent). */
    open(sealed: string | null | undefined): string | null {
      if (!key || !sealed) return null;
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || body === undefined || !tag) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
