import { expect } from 'vitest';
import { SESSION_COOKIE } from '../../src/auth/session.js';
import type { TestApp } from '../support/app.js';

/** Polls `check` until it passes or `ms` run out (webhooks must show within 5 s). */
export async function eventually<T>(check: () => Promise<T>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Someone signed in through `providerId` as forge user `forgeUserId`, their sign-in token kept (sealed) with the session. */
export async function forgeSession(t: TestApp, providerId: string, forgeUserId: string, login: string, token: string | null) {
  const user = await t.app.services.users.upsertForgeUser({ providerId, forgeUserId, login, name: login, email: null, avatarUrl: null });
  const sid = await t.app.services.sessions.create(user.id, token === null ? null : t.app.services.forgeTokens.seal(token));
  return { user, cookie: `${SESSION_COOKIE}=${encodeURIComponent(t.app.encodeSecureSession(t.app.createSecureSession({ sid })))}` };
}

export async function waitForPass(t: TestApp, orgId: string, cookie: string, after: string | null = null) {
  return eventually(async () => {
    const res = await t.request({ url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie } });
    const link = res.json<{ last_synced_at: string | null; last_error: string | null; counts: Record<string, number> }>();
    expect(link.last_synced_at !== null && (after === null || link.last_synced_at > after) || link.last_error !== null, res.body).toBe(true);
    return link;
  }, 20_000);
}
