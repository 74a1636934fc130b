import fs from 'node:fs';
import path from 'node:path';
import { hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import secureSession from '@fastify/secure-session';
import { SESSION_LIFETIME_MS } from './session-store.js';

export const SESSION_COOKIE = 'scanyard_session';

declare module '@fastify/secure-session' {
  interface SessionData {
    sid: string;
    /** `nonce` only for an OpenID Connect provider. */
    oauth: { provider: string; state: string; verifier: string; returnTo: string; nonce?: string };
    /** The OpenID Connect sign-in of this session: its ID token is the hint for signing out at the IdP. */
    idp: { provider: string; idToken: string };
    flash: string;
  }
}

export async function registerSessionCookie(app: FastifyInstance, secret: string, baseUrl: string): Promise<void> {
  await app.register(secureSession, {
    cookieName: SESSION_COOKIE,
    key: Buffer.from(hkdfSync('sha256', secret, 'scanyard', 'session cookie v1', 32)),
    expiry: SESSION_LIFETIME_MS / 1000,
    cookie: {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: baseUrl.startsWith('https:'),
      maxAge: SESSION_LIFETIME_MS / 1000,
    },
  });
}

/**
 * Outside production a missing SERVICE_SESSION_SECRET is generated once and kept beside the data,
 * so a developer's sessions survive restarts without any setup.
 */
export function resolveSessionSecret(configured: string | null, dataDir: string, log: FastifyBaseLogger): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'session-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  try {
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another instance starting beside us wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
  log.warn({ file }, 'SERVICE_SESSION_SECRET is not set; generated one and stored it in the data folder');
  return secret;
}
