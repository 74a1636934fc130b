import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { startForgeEmulator, type EmulatedForge, type ForgeEmulator } from '../support/forge-emulator.js';
import type { ForgeType } from '../../src/providers-config.js';

const BASE = 'http://localhost:8080';
const TYPES: ForgeType[] = ['github', 'gitlab', 'gitea', 'forgejo', 'bitbucket'];

describe('forge sign-in through the service', () => {
  let emulator: ForgeEmulator;
  let t: TestApp;
  const forges = new Map<ForgeType, EmulatedForge>();

  beforeAll(async () => {
    emulator = await startForgeEmulator();
    for (const type of TYPES) forges.set(type, emulator.addForge({ type, clientId: `${type}-client`, clientSecret: `${type}-secret-value`, redirectUri: `${BASE}/auth/callback` }));
    const providers = TYPES.map((type) => ({ id: type, ...forges.get(type)!.config, name: `Corp ${type}` }));
    t = await createTestApp('sqlite', { SERVICE_PROVIDERS: JSON.stringify(providers) });
  });
  afterAll(async () => {
    await t.close();
    await emulator.close();
  });

  /** What a browser does: /auth/login → the forge → back to /auth/callback with the cookie. */
  async function signIn(provider: string, returnTo?: string): Promise<LightMyRequestResponse> {
    const login = await t.request({ url: `/auth/login/${provider}${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}` });
    expect(login.statusCode).toBe(302);
    const atForge = await fetch(login.headers.location as string, { redirect: 'manual' });
    const back = new URL(atForge.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${BASE}/auth/callback`);
    return t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(login) } });
  }

  it('lists the providers in the configured order, with nothing secret', async () => {
    const res = await t.request({ url: '/auth/providers' });
    expect(res.json()).toEqual(TYPES.map((type) => ({ id: type, type, name: `Corp ${type}` })));
    expect(res.body).not.toContain('secret');
  });

  it.each(TYPES)('signs a new %s user in, lands on / with a session, and signs them in again as the same user', async (type) => {
    const forge = forges.get(type)!;
    const id = type === 'bitbucket' ? '{5f1a-user}' : 4242;
    forge.setNextUser({ id, login: `ada-${type}`, name: 'Ada', email: `ada@${type}.example`, avatarUrl: 'https://example/a.png' });
    const first = await signIn(type);
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe('/');
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(first) } })).json();
    expect(me).toMatchObject({ login: `ada-${type}`, name: 'Ada', email: `ada@${type}.example`, is_admin: false, provider: { id: type, type }, orgs: [] });

    forge.setNextUser({ id, login: `ada-renamed-${type}`, name: 'Ada L.', email: `ada@${type}.example`, avatarUrl: null });
    const again = await signIn(type, '/settings');
    expect(again.headers.location).toBe('/settings');
    const meAgain = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(again) } })).json();
    expect(meAgain.id).toBe(me.id);
    expect(meAgain.login).toBe(`ada-renamed-${type}`);
    // The client secret travels only server to server, never through the browser.
    expect(forge.requests.filter((r) => r.endpoint === 'authorize').every((r) => !r.url.includes('secret'))).toBe(true);
  });

  it('answers an unknown provider with 404', async () => {
    expect((await t.request({ url: '/auth/login/nope' })).statusCode).toBe(404);
  });

  it('rejects a wrong or missing state with 400 and creates nobody', async () => {
    const before = await t.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const login = await t.request({ url: '/auth/login/gitea' });
    const atForge = await fetch(login.headers.location as string, { redirect: 'manual' });
    const back = new URL(atForge.headers.get('location')!);
    back.searchParams.set('state', 'forged');
    const res = await t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(login) } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const noCookie = await t.request({ url: `/auth/callback?code=x&state=y` });
    expect(noCookie.statusCode).toBe(400);
    const after = await t.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('keeps the forge access token with the session only sealed, for the forge link check', async () => {
    forges.get('github')!.setNextUser({ id: 777, login: 'sealer', name: null, email: null, avatarUrl: null });
    await signIn('github');
    const user = await t.db.kysely.selectFrom('users').select('id').where('login', '=', 'sealer').executeTakeFirstOrThrow();
    const row = await t.db.kysely.selectFrom('sessions').select('forge_token').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    const opened = t.app.services.forgeTokens.open(row.forge_token);
    expect(opened).toMatch(/\S{8,}/);
    expect(row.forge_token).not.toContain(opened!);
    // Sealed under this service's session secret: a token sealed elsewhere, or altered, opens to nothing.
    expect(t.app.services.forgeTokens.open(`${row.forge_token!.slice(0, -2)}AA`)).toBeNull();
  });

  it('uses a callback once: replaying it is rejected', async () => {
    const login = await t.request({ url: '/auth/login/gitlab' });
    const atForge = await fetch(login.headers.location as string, { redirect: 'manual' });
    const back = new URL(atForge.headers.get('location')!);
    const first = await t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(login) } });
    expect(first.headers.location).toBe('/');
    const replay = await t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(first) } });
    expect(replay.statusCode).toBe(400);
  });

  it('sends a user who denies access back to the login screen with a message', async () => {
    const forge = forges.get('github')!;
    forge.setDeny(true);
    try {
      const res = await signIn('github');
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toMatch(/^\/login\?error=/);
      expect(decodeURIComponent(String(res.headers.location))).toContain('cancelled');
    } finally {
      forge.setDeny(false);
    }
  });

  it.each(['error', '500', 'malformed'] as const)('keeps the user on the login screen when the token endpoint fails (%s)', async (mode) => {
    const forge = forges.get('gitea')!;
    forge.setFailToken(mode);
    try {
      const res = await signIn('gitea');
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toMatch(/^\/login\?error=/);
      expect(String(res.headers.location)).not.toContain('secret');
    } finally {
      forge.setFailToken(null);
    }
  });

  it('ends the session on logout: the same cookie is then refused', async () => {
    forges.get('gitea')!.setNextUser({ id: 77, login: 'lin', name: null, email: null, avatarUrl: null });
    const cookie = sessionCookie(await signIn('gitea'));
    expect((await t.request({ url: '/api/v1/me', headers: { cookie } })).statusCode).toBe(200);
    const out = await t.request({ method: 'POST', url: '/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(204);
    expect((await t.request({ url: '/api/v1/me', headers: { cookie } })).statusCode).toBe(401);
  });

  it('treats a tampered cookie as no session', async () => {
    const cookie = sessionCookie(await signIn('gitea'));
    const value = cookie.split('=')[1]!;
    const flipped = `${value.slice(0, 10)}${value[10] === 'A' ? 'B' : 'A'}${value.slice(11)}`;
    const res = await t.request({ url: '/api/v1/me', headers: { cookie: `scanyard_session=${flipped}` } });
    expect(res.statusCode).toBe(401);
  });

  it('has no dev login while providers are configured', async () => {
    expect((await t.request({ method: 'POST', url: '/auth/dev-login' })).statusCode).toBe(404);
  });

  it('refuses a cross-site form post made with the cookie', async () => {
    const cookie = sessionCookie(await signIn('gitea'));
    const res = await t.request({ method: 'POST', url: '/api/v1/apikeys', headers: { cookie, origin: 'https://evil.example' }, payload: { name: 'x' } });
    expect(res.statusCode).toBe(403);
    const fetchSite = await t.request({ method: 'POST', url: '/auth/logout', headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect(fetchSite.statusCode).toBe(403);
    const sameOrigin = await t.request({ method: 'POST', url: '/api/v1/apikeys', headers: { cookie, origin: BASE }, payload: { name: 'x' } });
    expect(sameOrigin.statusCode).toBe(201);
  });

  it('keeps return_to on this service', async () => {
    for (const evil of ['https://evil.example/', '//evil.example', '/\\evil.example']) {
      const res = await signIn('gitea', evil);
      expect(res.headers.location).toBe('/');
    }
  });
});

describe('development login', () => {
  it('signs in the local administrator dev when no provider is configured', async () => {
    const t = await createTestApp('sqlite');
    try {
      const res = await t.request({ method: 'POST', url: '/auth/dev-login' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ login: 'dev', is_admin: true, provider: null });
      const me = await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(res) } });
      expect(me.json()).toMatchObject({ login: 'dev', is_admin: true });
      const again = await t.request({ method: 'POST', url: '/auth/dev-login' });
      expect(again.json().id).toBe(res.json().id);
    } finally {
      await t.close();
    }
  });

  it('sets an HttpOnly, SameSite=Lax, 7-day cookie, Secure when the service is on https', async () => {
    for (const [base, secure] of [['http://localhost:8080', false], ['https://scanyard.example', true]] as const) {
      const t = await createTestApp('sqlite', { SERVICE_BASE_URL: base });
      try {
        const cookie = (await t.request({ method: 'POST', url: '/auth/dev-login' })).cookies.find((c) => c.name === 'scanyard_session')!;
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 7 * 24 * 3600 });
        expect(Boolean(cookie.secure)).toBe(secure);
      } finally {
        await t.close();
      }
    }
  });

  it('is off with SERVICE_DEV_LOGIN=false', async () => {
    const t = await createTestApp('sqlite', { SERVICE_DEV_LOGIN: 'false' });
    try {
      expect((await t.request({ method: 'POST', url: '/auth/dev-login' })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});
