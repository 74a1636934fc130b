import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { orgClient } from '../support/orgs.js';
import { DB_KINDS } from '../support/db.js';
import { peek, startOidcIdp, type OidcIdp } from '../support/oidc-idp.js';

const BASE = 'http://localhost:8080';
const CLIENT = { client_id: 'scanyard', client_secret: 'scanyard-client-secret-value', redirect_uri: `${BASE}/auth/callback` };
// The attacker's own app, registered at the same IdP: its ID tokens are valid, but not for us.
const OTHER = { client_id: 'other-app', client_secret: 'other-app-secret-value', redirect_uri: 'http://127.0.0.1:1/cb' };

describe.each(DB_KINDS)('OpenID Connect sign-in against a real OpenID Provider on %s', (kind) => {
  let idp: OidcIdp;
  let t: TestApp;
  let orgs: ReturnType<typeof orgClient>;
  const logged: string[] = [];

  beforeAll(async () => {
    idp = await startOidcIdp([
      { client_id: CLIENT.client_id, client_secret: CLIENT.client_secret, redirect_uris: [CLIENT.redirect_uri], post_logout_redirect_uris: [`${BASE}/login`] },
      { client_id: OTHER.client_id, client_secret: OTHER.client_secret, redirect_uris: [OTHER.redirect_uri] },
    ]);
    const provider = {
      id: 'corp', type: 'oidc', name: 'Corp SSO', issuer: idp.issuer, client_id: CLIENT.client_id, client_secret: CLIENT.client_secret,
      scopes: ['openid', 'profile', 'email', 'groups'], end_session: true,
      group_mappings: [
        { group: 'sec-team', org: 'Acme', role: 'owner', team: 'payments' },
        { group: 'devs', org: 'acme', role: 'member' },
        { group: 'devs', org: 'Beta', role: 'member' },
        { group: 'devs', org: 'not-created-yet', role: 'member' },
      ],
    };
    const stream = new Writable({ write(chunk: Buffer, _enc, done) { logged.push(chunk.toString('utf8')); done(); } });
    // An IdP that is down (nothing listens on port 1): the service starts, and only its sign-in fails.
    const down = { id: 'down', type: 'oidc', name: 'Down SSO', issuer: 'http://127.0.0.1:1/realms/x', client_id: 'c', client_secret: 's' };
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify([provider, down]), LOG_LEVEL: 'warn' }, { stream });
    orgs = orgClient(t);
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });
  afterEach(() => {
    vi.useRealTimers();
    idp.tamperIdToken = null;
  });

  /** What a browser does: /auth/login → the IdP (login, consent) → back to /auth/callback with our cookie. */
  async function signIn(rewriteAuthorize: (url: URL) => URL = (u) => u): Promise<LightMyRequestResponse> {
    const login = await t.request({ url: '/auth/login/corp' });
    expect(login.statusCode, login.body).toBe(302);
    const back = await idp.authorize(rewriteAuthorize(new URL(login.headers.location as string)).toString());
    expect(`${back.origin}${back.pathname}`).toBe(`${BASE}/auth/callback`);
    return t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(login) } });
  }

  const userCount = async () => Number((await t.db.kysely.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const sessionCount = async () => Number((await t.db.kysely.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  /** A refused sign-in: sent to the login screen with a fixed code, no user, no session, no session cookie. */
  async function expectRefused(res: LightMyRequestResponse, users: number, sessions: number, why: RegExp) {
    expect(res.statusCode).toBe(302);
    // Refused for the reason the test is about, not by accident: the reason goes to the log.
    const reason = logged.filter((l) => l.includes('OpenID Connect sign-in refused')).at(-1) ?? '';
    expect(reason).toMatch(why);
    logged.length = 0;
    expect(res.headers.location).toBe('/login?error=forge_failed');
    expect(await userCount()).toBe(users);
    expect(await sessionCount()).toBe(sessions);
    const cookie = res.cookies.find((c) => c.name === 'scanyard_session');
    if (cookie) {
      const me = await t.request({ url: '/api/v1/me', headers: { cookie: `scanyard_session=${encodeURIComponent(cookie.value)}` } });
      expect(me.statusCode).toBe(401);
    }
  }

  it('lists the provider and signs a user in by code flow with PKCE, keyed by sub, with profile claims', async () => {
    expect((await t.request({ url: '/auth/providers' })).json()).toEqual([{ id: 'corp', type: 'oidc', name: 'Corp SSO' }, { id: 'down', type: 'oidc', name: 'Down SSO' }]);
    const login = await t.request({ url: '/auth/login/corp' });
    const authorize = new URL(login.headers.location as string);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.toString()).not.toContain('secret');

    idp.nextUser = { sub: 'sub-ada', preferred_username: 'ada', name: 'Ada Lovelace', email: 'ada@corp.example', groups: [] };
    const res = await signIn();
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/');
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(res) } })).json();
    expect(me).toMatchObject({ login: 'ada', name: 'Ada Lovelace', email: 'ada@corp.example', provider: { id: 'corp', type: 'oidc' } });

    // The same sub with a new username is the same user; another sub with the old username is not.
    idp.nextUser = { sub: 'sub-ada', preferred_username: 'ada.l', name: 'Ada L.', email: 'ada@corp.example' };
    const again = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(await signIn()) } })).json();
    expect(again.id).toBe(me.id);
    expect(again.login).toBe('ada.l');
  });

  it('sends the browser back to the login screen when the IdP cannot be reached, and logs why', async () => {
    const res = await t.request({ url: '/auth/login/down' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/login?error=forge_failed');
    expect(logged.some((l) => l.includes('OpenID Connect sign-in could not start') && l.includes('discovery document'))).toBe(true);
  });

  it('refuses a sign-in whose claims hold no login, creating nobody', async () => {
    const [users, sessions] = [await userCount(), await sessionCount()];
    idp.nextUser = { sub: 'sub-nameless', email: 'x@corp.example' };
    await expectRefused(await signIn(), users, sessions, /sent no \W+preferred_username\W+ claim/);
  });

  it('refuses an ID token whose nonce is not the one this sign-in sent', async () => {
    const [users, sessions] = [await userCount(), await sessionCount()];
    idp.nextUser = { sub: 'sub-nonce', preferred_username: 'mallory' };
    // The IdP signs what it is asked for: an authorization request carrying another nonce.
    const res = await signIn((url) => {
      url.searchParams.set('nonce', 'nonce-of-another-sign-in');
      return url;
    });
    await expectRefused(res, users, sessions, /OAUTH_JWT_CLAIM_COMPARISON_FAILED, claim nonce/);
  });

  it('refuses an expired ID token, signed by the IdP', async () => {
    const [users, sessions] = [await userCount(), await sessionCount()];
    idp.nextUser = { sub: 'sub-expired', preferred_username: 'old' };
    idp.tamperIdToken = async (token) => {
      const { claims } = peek(token);
      const past = Math.floor(Date.now() / 1000) - 7200;
      return idp.sign({ ...claims, iat: past, exp: past + 600 });
    };
    await expectRefused(await signIn(), users, sessions, /OAUTH_JWT_TIMESTAMP_CHECK_FAILED, claim exp/);
  });

  it("refuses an ID token the IdP issued to another client, with this sign-in's nonce", async () => {
    const [users, sessions] = [await userCount(), await sessionCount()];
    idp.nextUser = { sub: 'sub-other', preferred_username: 'eve' };
    const login = await t.request({ url: '/auth/login/corp' });
    const ours = new URL(login.headers.location as string);
    // The attacker's app asks for a token carrying the nonce of our pending sign-in.
    const verifier = 'v'.repeat(43);
    const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url');
    const attackerUrl = new URL(`${idp.issuer}/auth`);
    for (const [k, v] of Object.entries({ client_id: OTHER.client_id, redirect_uri: OTHER.redirect_uri, response_type: 'code', scope: 'openid', nonce: ours.searchParams.get('nonce')!, state: 'x', code_challenge: challenge, code_challenge_method: 'S256' })) attackerUrl.searchParams.set(k, v);
    const attackerBack = await idp.authorize(attackerUrl.toString());
    const redeemed = await idp.redeemAs(OTHER, attackerBack.searchParams.get('code')!, verifier);
    const theirs = redeemed.id_token;
    expect(peek(theirs).claims).toMatchObject({ aud: OTHER.client_id, nonce: ours.searchParams.get('nonce') });

    idp.tamperIdToken = () => Promise.resolve(theirs);
    const back = await idp.authorize(ours.toString());
    const res = await t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(login) } });
    await expectRefused(res, users, sessions, /OAUTH_JWT_CLAIM_COMPARISON_FAILED, claim aud/);
  });

  it('refuses an ID token whose azp names another client when it has several audiences', async () => {
    const [users, sessions] = [await userCount(), await sessionCount()];
    idp.nextUser = { sub: 'sub-azp', preferred_username: 'azp' };
    idp.tamperIdToken = async (token) => idp.sign({ ...peek(token).claims, aud: [CLIENT.client_id, OTHER.client_id], azp: OTHER.client_id });
    await expectRefused(await signIn(), users, sessions, /OAUTH_JWT_CLAIM_COMPARISON_FAILED, claim azp/);
  });

  it('refuses an ID token whose claims were changed after signing', async () => {
    const [users, sessions] = [await userCount(), await sessionCount()];
    idp.nextUser = { sub: 'sub-tamper', preferred_username: 'tamper' };
    idp.tamperIdToken = (token) => {
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'sub-ada' })).toString('base64url');
      return Promise.resolve(`${header}.${forged}.${signature}`);
    };
    await expectRefused(await signIn(), users, sessions, /JWT signature verification failed/);
  });

  it('accepts ID tokens signed with a new key within 60 seconds of the rotation', async () => {
    idp.nextUser = { sub: 'sub-rotate', preferred_username: 'rotor' };
    expect((await signIn()).headers.location).toBe('/');
    const oldKid = idp.kid();
    const newKid = await idp.rotateKeys();
    expect(newKid).not.toBe(oldKid);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    const res = await signIn();
    expect(res.headers.location).toBe('/');
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(res) } })).json();
    expect(me.login).toBe('rotor');
  });

  it('grants memberships and teams from groups at every sign-in, source idp, and never touches ones given by hand', async () => {
    const { user: owner, cookie } = await t.user('acme-founder');
    const acme = await orgs.createOrg(cookie, 'Acme');
    const beta = await orgs.createOrg(cookie, 'Beta');
    const payments = await orgs.createTeam(cookie, acme.id, { name: 'Payments' });
    void owner;

    idp.nextUser = { sub: 'sub-grace', preferred_username: 'grace', groups: ['sec-team', 'unmapped'] };
    const first = await signIn();
    expect(first.headers.location).toBe('/');
    const grace = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(first) } })).json();
    const member = (org: string) => t.request({ url: `/api/v1/orgs/${org}/members/${grace.id}`, headers: { cookie } });
    expect((await member(acme.id)).json()).toMatchObject({ role: 'owner', source: 'idp' });
    expect((await member(beta.id)).statusCode).toBe(404);
    const team = (await orgs.call(cookie, 'GET', `/api/v1/teams/${payments.id}`)).json();
    expect(team.members).toContain(grace.id);
    // The team itself was made here; only grace's place in it came from the IdP.
    expect(team.source).toBe('local');

    // Beta's owner adds grace by hand; the IdP then moves her from sec-team to devs.
    await orgs.setMember(cookie, beta.id, grace.id, 'owner');
    idp.nextUser = { ...idp.nextUser, groups: ['devs'] };
    await signIn();
    expect((await member(acme.id)).json()).toMatchObject({ role: 'member', source: 'idp' });
    expect((await member(beta.id)).json()).toMatchObject({ role: 'owner', source: 'local' });
    expect((await orgs.call(cookie, 'GET', `/api/v1/teams/${payments.id}`)).json().members).not.toContain(grace.id);

    expect(logged.some((l) => l.includes('names an organisation that does not exist') && l.includes('not-created-yet'))).toBe(true);
    // An org created after start is picked up at the next sign-in, by name.
    const late = await orgs.createOrg(cookie, 'not-created-yet');
    await signIn();
    expect((await member(late.id)).json()).toMatchObject({ role: 'member', source: 'idp' });

    // Out of every mapped group: the IdP's grants go, the hand-given one stays.
    idp.nextUser = { ...idp.nextUser, groups: [] };
    await signIn();
    expect((await member(acme.id)).statusCode).toBe(404);
    expect((await member(late.id)).statusCode).toBe(404);
    expect((await member(beta.id)).json()).toMatchObject({ role: 'owner', source: 'local' });
  });

  it('signs out at the IdP too: POST /auth/logout answers 200 {redirect} to its end_session_endpoint', async () => {
    idp.nextUser = { sub: 'sub-leaver', preferred_username: 'leaver' };
    const res = await signIn();
    const cookie = sessionCookie(res);
    const out = await t.request({ method: 'POST', url: '/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(200);
    const redirect = new URL(out.json().redirect);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(`${idp.issuer}/session/end`);
    expect(redirect.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE}/login`);
    expect(peek(redirect.searchParams.get('id_token_hint')!).claims.sub).toBe('sub-leaver');
    expect((await t.request({ url: '/api/v1/me', headers: { cookie } })).statusCode).toBe(401);
    // The IdP accepts the request (its logout confirmation page), rather than an error.
    expect((await fetch(redirect, { redirect: 'manual' })).status).toBe(200);
  });
});
