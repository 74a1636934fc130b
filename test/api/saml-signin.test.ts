import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/index.js';
import { createTestApp, sessionCookie, TEST_SECRET, type TestApp } from '../support/app.js';
import { orgClient } from '../support/orgs.js';
import { DB_KINDS } from '../support/db.js';
import { startSamlIdp, type PostedForm, type SamlIdp } from '../support/saml-idp.js';

const BASE = 'http://localhost:8080';
const ACS = `${BASE}/auth/saml/corp/acs`;
const SP_ENTITY = `${BASE}/auth/saml/corp/metadata`;
const BINDING_COOKIE = 'scanyard_saml_binding';

describe.each(DB_KINDS)('SAML 2.0 sign-in against a test IdP on %s', (kind) => {
  let idp: SamlIdp;
  let t: TestApp;
  let orgs: ReturnType<typeof orgClient>;
  const logged: string[] = [];

  beforeAll(async () => {
    idp = await startSamlIdp();
    const provider = {
      id: 'corp', type: 'saml', name: 'Corp SAML', idp_metadata_url: idp.metadataUrl,
      group_mappings: [
        { group: 'sec-team', org: 'Acme', role: 'owner', team: 'payments' },
        { group: 'devs', org: 'Acme', role: 'member' },
        // A team SCIM provisions (made in its test): its members come from SCIM Groups only.
        { group: 'devs', org: 'Acme', role: 'member', team: 'platform' },
      ],
    };
    // Nothing listens on port 1: the service starts all the same, and only that provider's sign-in fails.
    const down = { id: 'down', type: 'saml', name: 'Down SAML', idp_metadata_url: 'http://127.0.0.1:1/metadata' };
    const stream = new Writable({ write(chunk: Buffer, _enc, done) { logged.push(chunk.toString('utf8')); done(); } });
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify([provider, down]), SERVICE_SAML_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' }, { stream });
    orgs = orgClient(t);
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });
  afterEach(() => {
    idp.next = {};
    idp.nextUser = { nameId: 'ada@corp.example', attributes: { uid: 'ada' } };
  });

  /** SP-initiated: /auth/login → the IdP (HTTP-Redirect) → its page's form, not yet posted; `browser` is the cookie the starting browser holds. */
  async function startSignIn(returnTo?: string): Promise<PostedForm & { browser: string }> {
    const login = await t.request({ url: `/auth/login/corp${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}` });
    expect(login.statusCode, login.body).toBe(302);
    return { ...(await idp.authorize(login.headers.location as string)), browser: bindingCookie(login) };
  }

  function bindingCookie(login: LightMyRequestResponse): string {
    const cookie = login.cookies.find((c) => c.name === BINDING_COOKIE);
    if (!cookie) throw new Error(`no binding cookie in the response (${login.statusCode})`);
    return `${BINDING_COOKIE}=${cookie.value}`;
  }

  /** The browser posts the IdP's form: cross-site, so it carries the IdP's Origin and none of our SameSite=Lax cookies. */
  function post(form: Pick<PostedForm, 'action' | 'SAMLResponse'>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    expect(form.action).toBe(ACS);
    return t.request({
      method: 'POST', url: new URL(form.action).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(idp.ssoUrl).origin, 'sec-fetch-site': 'cross-site', ...headers },
      payload: new URLSearchParams({ SAMLResponse: form.SAMLResponse }).toString(),
    });
  }

  /** The browser follows the ACS's 303: a top-level GET navigation, which carries our Lax cookies (`cookie`, as that browser holds them). */
  function follow(acs: LightMyRequestResponse, cookie?: string): Promise<LightMyRequestResponse> {
    expect(acs.statusCode, acs.body).toBe(303);
    expect(acs.cookies).toEqual([]);
    return t.request({ url: acs.headers.location as string, headers: cookie === undefined ? {} : { cookie } });
  }

  /** The browser that started the sign-in posts the IdP's form and follows on: the ACS's answer when it refuses, else the completion's. */
  async function signIn(form: PostedForm & { browser: string }): Promise<LightMyRequestResponse> {
    const acs = await post(form);
    return acs.statusCode === 303 ? follow(acs, form.browser) : acs;
  }

  const count = async (table: 'users' | 'sessions' | 'memberships' | 'team_members') =>
    Number((await t.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const counts = async () => ({ users: await count('users'), sessions: await count('sessions'), memberships: await count('memberships'), teams: await count('team_members') });

  /** Refused: 401 problem, for the reason the test is about (from the log), and nothing created. */
  async function expectRefused(res: LightMyRequestResponse, before: Awaited<ReturnType<typeof counts>>, why: RegExp) {
    expect(res.statusCode, res.body).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const reason = logged.filter((l) => l.includes('SAML sign-in refused')).at(-1) ?? '';
    expect(reason).toMatch(why);
    logged.length = 0;
    expect(res.cookies.find((c) => c.name === 'scanyard_session')).toBeUndefined();
    expect(await counts()).toEqual(before);
  }

  /** An org Acme with a team, so that a sign-in in group sec-team would be granted both. */
  let acme: { id: string; owner: string } | null = null;
  async function mappedOrg() {
    if (acme) return acme;
    const { cookie } = await t.user('acme-founder');
    acme = { ...(await orgs.createOrg(cookie, 'Acme')), owner: cookie };
    await orgs.createTeam(cookie, acme.id, { name: 'Payments' });
    return acme;
  }

  it('lists the provider, sends an AuthnRequest by HTTP-Redirect and signs the user in from the posted Response', async () => {
    expect((await t.request({ url: '/auth/providers' })).json()).toEqual([{ id: 'corp', type: 'saml', name: 'Corp SAML' }, { id: 'down', type: 'saml', name: 'Down SAML' }]);
    const login = await t.request({ url: '/auth/login/corp?return_to=/orgs' });
    const sso = new URL(login.headers.location as string);
    expect(`${sso.origin}${sso.pathname}`).toBe(idp.ssoUrl);
    // The pending request is kept server-side (the cross-site POST carries no cookie of ours); the
    // browser keeps only the random value binding the sign-in to it, for the completion alone.
    expect(login.cookies).toEqual([expect.objectContaining({
      name: BINDING_COOKIE, value: expect.stringMatching(/^[\w-]{43}$/), httpOnly: true, sameSite: 'Lax', path: '/auth/saml/corp/complete', maxAge: 720,
    })]);
    const request = inflateRawSync(Buffer.from(sso.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    expect(request).toContain(`AssertionConsumerServiceURL="${ACS}"`);
    expect(request).toContain(`>${SP_ENTITY}</saml:Issuer>`);

    idp.nextUser = { nameId: 'ada@corp.example', attributes: { uid: 'ada', displayName: 'Ada Lovelace', email: 'ada@corp.example' } };
    const form = await idp.authorize(sso.toString());
    expect(idp.lastRequest()).toMatchObject({ acsUrl: ACS, issuer: SP_ENTITY, destination: idp.ssoUrl });
    const before = await counts();
    const acs = await post(form);
    expect(acs.statusCode, acs.body).toBe(303);
    expect(acs.headers.location).toMatch(/^\/auth\/saml\/corp\/complete\?ticket=[\w-]{43}$/);
    // Verified, not signed in yet: nothing is written before the browser that started it comes back.
    expect(acs.cookies).toEqual([]);
    expect(await counts()).toEqual(before);
    const res = await follow(acs, bindingCookie(login));
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe('/orgs');
    const cookie = res.cookies.find((c) => c.name === 'scanyard_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // Used, so cleared.
    expect(res.cookies.find((c) => c.name === BINDING_COOKIE)).toMatchObject({ value: '', path: '/auth/saml/corp/complete', maxAge: 0 });
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(res) } })).json();
    expect(me).toMatchObject({ login: 'ada', name: 'Ada Lovelace', email: 'ada@corp.example', provider: { id: 'corp', type: 'saml' } });

    // The same NameID with another uid is the same user; the NameID is the login when no uid comes.
    idp.nextUser = { nameId: 'ada@corp.example', attributes: { uid: 'ada.l' } };
    const again = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(await signIn(await startSignIn())) } })).json();
    expect(again).toMatchObject({ id: me.id, login: 'ada.l' });
    idp.nextUser = { nameId: 'grace@corp.example', attributes: {} };
    const grace = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(await signIn(await startSignIn())) } })).json();
    expect(grace.login).toBe('grace@corp.example');
    expect(grace.id).not.toBe(me.id);
  });

  it('accepts a signed Response around an unsigned assertion, and both signed', async () => {
    for (const sign of ['response', 'both'] as const) {
      idp.next = { sign };
      idp.nextUser = { nameId: `signed-${sign}@corp.example`, attributes: {} };
      const res = await signIn(await startSignIn());
      expect(res.statusCode, `${sign}: ${res.body}`).toBe(302);
    }
  });

  it('accepts an assertion up to 60 seconds past its NotOnOrAfter (clock skew), not later', async () => {
    idp.nextUser = { nameId: 'skewed@corp.example', attributes: {} };
    idp.next = { shiftMs: -(5 * 60_000 + 30_000) };
    expect((await signIn(await startSignIn())).statusCode).toBe(302);
    const before = await counts();
    idp.nextUser = { nameId: 'late@corp.example', attributes: {} };
    idp.next = { shiftMs: -(5 * 60_000 + 90_000) };
    await expectRefused(await signIn(await startSignIn()), before, /No valid subject confirmation|expired/);
  });

  describe('refuses every classic attack with 401, creating no user, session or membership', () => {
    const attacker = { nameId: 'mallory@corp.example', attributes: { uid: 'mallory', groups: ['sec-team'] } };

    it('an unsigned Response with an unsigned assertion', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { sign: 'none' };
      await expectRefused(await signIn(await startSignIn()), before, /Invalid signature/);
    });

    it('a Response signed by a key the metadata does not name', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { sign: 'both', foreignKey: true };
      await expectRefused(await signIn(await startSignIn()), before, /Invalid (document )?signature/);
    });

    // XML signature wrapping (Somorovsky et al., "On Breaking SAML", USENIX Security 2012): the IdP
    // signed mallory's assertion; the attacker adds or moves elements so that a careless reader
    // takes an unsigned assertion for admin while the signature still verifies.
    const forged = (xml: string) => xml
      .replace(/ ID="_a[0-9a-f]+"/, ' ID="_evil"')
      .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '')
      .replace('mallory@corp.example', 'admin@corp.example')
      .replace('>mallory<', '>admin<');
    const signedAssertion = (xml: string) => /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)![0];
    it.each([
      ['an unsigned assertion beside the signed one', (xml: string) => xml.replace('</samlp:Status>', `</samlp:Status>${forged(signedAssertion(xml))}`)],
      ['the signed assertion hidden in the Extensions of the Response, a forged one in its place', (xml: string) =>
        xml.replace(signedAssertion(xml), forged(signedAssertion(xml))).replace('<samlp:Status>', `<samlp:Extensions>${signedAssertion(xml)}</samlp:Extensions><samlp:Status>`)],
      ['the signed assertion inside a forged assertion that reuses its ID', (xml: string) => {
        const original = signedAssertion(xml);
        const id = / ID="(_a[0-9a-f]+)"/.exec(original)![1]!;
        const evil = forged(original).replace('ID="_evil"', `ID="${id}"`).replace('</saml:Subject>', `</saml:Subject>${original}`);
        return xml.replace(original, evil);
      }],
      ['the signature of the assertion moved into a forged assertion', (xml: string) => {
        const original = signedAssertion(xml);
        const signature = /<ds:Signature[\s\S]*?<\/ds:Signature>/.exec(original)![0];
        const evil = forged(original).replace('</saml:Issuer>', `</saml:Issuer>${signature.replace('</ds:Signature>', `<ds:Object>${original.replace(signature, '')}</ds:Object></ds:Signature>`)}`);
        return xml.replace(original, evil);
      }],
    ])('a wrapped Response: %s', async (_name, wrap) => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { tamper: wrap };
      await expectRefused(await signIn(await startSignIn()), before, /signature|multiple assertions|ID cannot refer|Referenced node/i);
    });

    it('a replayed Response', async () => {
      await mappedOrg();
      idp.nextUser = { nameId: 'once@corp.example', attributes: {} };
      const form = await startSignIn();
      expect((await signIn(form)).statusCode).toBe(302);
      const before = await counts();
      await expectRefused(await post(form), before, /replayed/);
      // Replayed against a request that is still pending: its signed InResponseTo names the first one.
      await startSignIn();
      const pending = idp.lastRequest()!.id;
      await expectRefused(await post({ ...form, SAMLResponse: Buffer.from(form.xml.replace(/(<samlp:Response[^>]*InResponseTo=")[^"]+/, `$1${pending}`)).toString('base64') }), before, /replayed/);
    });

    // Login CSRF (#43): mallory starts a sign-in in her own browser, and her own valid Response is
    // posted by an auto-submitting form on a page the victim opens. Signed in, the victim would
    // work in mallory's account (and upload, make keys there).
    it("the attacker's own valid Response posted from the victim's browser, with the victim's cookies or none", async () => {
      await mappedOrg();
      const victim = await t.user('victim');
      // The victim has a sign-in of their own under way too: its binding cookie is theirs, not mallory's.
      idp.nextUser = { nameId: 'victim@corp.example', attributes: {} };
      const victims = await startSignIn();
      for (const cookies of [undefined, victims.browser, `${victims.browser}; ${victim.cookie}`]) {
        idp.nextUser = attacker;
        const mallorys = await startSignIn();
        const before = await counts();
        await expectRefused(await follow(await post(mallorys), cookies), before, /this browser did not start the sign-in/);
      }
      expect((await t.request({ url: '/api/v1/me', headers: { cookie: victim.cookie } })).json().login).toBe('victim');
      // The victim's own sign-in is not disturbed.
      const own = await signIn(victims);
      expect((await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(own) } })).json().login).toBe('victim@corp.example');
    });

    it('a completion ticket used twice', async () => {
      idp.nextUser = { nameId: 'ticket-once@corp.example', attributes: {} };
      const form = await startSignIn();
      const acs = await post(form);
      expect((await follow(acs, form.browser)).statusCode).toBe(302);
      const before = await counts();
      await expectRefused(await follow(acs, form.browser), before, /ticket is unknown or was used before/);
    });

    it('a completion ticket a few minutes old', async () => {
      await mappedOrg();
      idp.nextUser = attacker;
      const form = await startSignIn();
      const acs = await post(form);
      const before = await counts();
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3 * 60_000 });
      try {
        await expectRefused(await follow(acs, form.browser), before, /ticket has expired/);
      } finally {
        vi.useRealTimers();
      }
    });

    it('an expired assertion', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { shiftMs: -10 * 60_000 };
      await expectRefused(await signIn(await startSignIn()), before, /No valid subject confirmation|expired/);
    });

    it('an assertion not valid yet', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { shiftMs: 3 * 60_000 };
      await expectRefused(await signIn(await startSignIn()), before, /not yet valid/);
    });

    it('an assertion for another service provider (wrong audience)', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { audience: 'https://other-app.example/saml' };
      await expectRefused(await signIn(await startSignIn()), before, /audience mismatch/);
    });

    it("an assertion addressed to another service provider's ACS (wrong recipient)", async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { recipient: 'https://other-app.example/saml/acs' };
      await expectRefused(await signIn(await startSignIn()), before, /Recipient \W+https:\/\/other-app\.example\/saml\/acs\W+ is not this ACS/);
    });

    it('a Response to an AuthnRequest this service never sent (wrong InResponseTo)', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { inResponseTo: '_not-a-request-of-ours' };
      await expectRefused(await signIn(await startSignIn()), before, /InResponseTo names no pending AuthnRequest/);
    });

    it('an assertion signed with the IdP key but naming another issuer', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { issuer: 'https://other-idp.example/saml' };
      await expectRefused(await signIn(await startSignIn()), before, /Issuer \W+https:\/\/other-idp\.example\/saml\W+ is not the IdP of the metadata/);
    });

    it('a signed Response whose Destination is another ACS', async () => {
      await mappedOrg();
      const before = await counts();
      idp.nextUser = attacker;
      idp.next = { sign: 'response', destination: 'https://other-app.example/saml/acs' };
      await expectRefused(await signIn(await startSignIn()), before, /Destination \W+https:\/\/other-app\.example\/saml\/acs\W+ is not this ACS/);
    });

    it('a NameID with a comment inserted after signing (admin@corp.example<!---->.evil.example)', async () => {
      await mappedOrg();
      const before = await counts();
      // mallory owns admin@corp.example.evil.example at the IdP; the signature survives the comment.
      idp.nextUser = { nameId: 'admin@corp.example.evil.example', attributes: {} };
      idp.next = { tamper: (xml) => xml.replace('admin@corp.example.evil.example', 'admin@corp.example<!---->.evil.example') };
      await expectRefused(await signIn(await startSignIn()), before, /XML comment/);
    });
  });

  it('sends a browser whose sign-in is refused back to the login screen, signing no one in, at the ACS and at the completion', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const before = await counts();
    idp.nextUser = { nameId: 'mallory@corp.example', attributes: { uid: 'mallory' } };
    idp.next = { sign: 'none' };
    const acs = await post(await startSignIn(), html);
    expect(acs.statusCode, acs.body).toBe(303);
    expect(acs.headers.location).toBe('/login?error=not_verified');
    expect(logged.filter((l) => l.includes('SAML sign-in refused')).at(-1)).toMatch(/Invalid signature/);
    // A valid Response, completed by a browser that did not start the sign-in (no binding cookie).
    idp.next = {};
    const verified = await post(await startSignIn(), html);
    expect(verified.statusCode, verified.body).toBe(303);
    const completion = await t.request({ url: verified.headers.location as string, headers: html });
    expect(completion.statusCode, completion.body).toBe(303);
    expect(completion.headers.location).toBe('/login?error=not_verified');
    expect(completion.cookies.find((c) => c.name === 'scanyard_session')).toBeUndefined();
    logged.length = 0;
    expect(await counts()).toEqual(before);
  });

  it('refuses a transient NameID, which would make a new user at every sign-in', async () => {
    const before = await counts();
    idp.nextUser = { nameId: '_3f1e0c2a9b', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient', attributes: { uid: 'ada' } };
    await expectRefused(await signIn(await startSignIn()), before, /NameID is transient/);
  });

  it('applies group mappings at every sign-in, source idp: added, then removed when the group goes', async () => {
    const org = await mappedOrg();
    idp.nextUser = { nameId: 'linus@corp.example', attributes: { uid: 'linus', groups: ['sec-team', 'unmapped'] } };
    const first = await signIn(await startSignIn());
    expect(first.statusCode).toBe(302);
    const cookie = sessionCookie(first);
    const linus = (await t.request({ url: '/api/v1/me', headers: { cookie } })).json();
    expect((await t.request({ url: `/api/v1/orgs/${org.id}/members/${linus.id}`, headers: { cookie } })).json()).toMatchObject({ role: 'owner', source: 'idp' });
    const teams = (await t.request({ url: `/api/v1/orgs/${org.id}/teams`, headers: { cookie } })).json<{ id: string; name: string }[]>();
    const payments = teams.find((team) => team.name === 'Payments')!;
    expect((await t.request({ url: `/api/v1/teams/${payments.id}`, headers: { cookie } })).json().members).toContain(linus.id);

    // Out of the group at the IdP: the next sign-in takes the membership and the team away.
    idp.nextUser = { nameId: 'linus@corp.example', attributes: { uid: 'linus', groups: [] } };
    const second = await signIn(await startSignIn());
    expect(second.statusCode).toBe(302);
    expect((await t.request({ url: `/api/v1/me`, headers: { cookie: sessionCookie(second) } })).json().orgs).toEqual([]);
    expect(Number((await t.db.kysely.selectFrom('team_members').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', linus.id).executeTakeFirstOrThrow()).n)).toBe(0);
  });

  it('leaves a team SCIM provisions to SCIM: a mapping naming it adds no one, and the log says why', async () => {
    const org = await mappedOrg();
    const at = new Date().toISOString();
    const platform = { id: 'scim-team-platform', org_id: org.id, name: 'Platform', name_key: 'platform', description: '', source: 'scim' as const, forge_id: null, created_at: at, updated_at: at };
    await t.db.kysely.insertInto('teams').values(platform).execute();
    idp.nextUser = { nameId: 'grace@corp.example', attributes: { uid: 'grace', groups: ['devs'] } };
    logged.length = 0;
    const res = await signIn(await startSignIn());
    expect(res.statusCode, res.body).toBe(302);
    const grace = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(res) } })).json<{ id: string; orgs: unknown[] }>();
    expect(grace.orgs).toHaveLength(1);
    const members = await t.db.kysely.selectFrom('team_members').select('user_id').where('team_id', '=', platform.id).execute();
    expect(members).toEqual([]);
    const about = logged.filter((l) => l.includes('"team":"platform"'));
    expect(about.some((l) => l.includes('names a team SCIM provisions'))).toBe(true);
    expect(about.some((l) => l.includes('does not exist'))).toBe(false);
    logged.length = 0;
  });

  it('links a user provisioned by SCIM (externalId = the NameID) at their first SAML sign-in, as a member of source scim', async () => {
    const org = await mappedOrg();
    const owner = org.owner;
    const minted = await t.request({ method: 'POST', url: `/api/v1/orgs/${org.id}/scim-token?provider=corp`, headers: { cookie: owner } });
    expect(minted.statusCode, minted.body).toBe(201);
    expect(minted.json().provider).toBe('corp');
    // RFC 7644 3.3, the shape Okta sends when it pushes a new user.
    const provisioned = await t.request({
      method: 'POST', url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${minted.json().token}`, 'content-type': 'application/scim+json' },
      payload: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'grace.hopper', externalId: 'hopper@corp.example', active: true }),
    });
    expect(provisioned.statusCode, provisioned.body).toBe(201);

    idp.nextUser = { nameId: 'hopper@corp.example', attributes: { uid: 'ghopper' } };
    const signedIn = await signIn(await startSignIn());
    expect(signedIn.statusCode, signedIn.body).toBe(302);
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(signedIn) } })).json();
    expect((await t.request({ url: `/api/v1/orgs/${org.id}/members/${me.id}`, headers: { cookie: owner } })).json()).toMatchObject({ role: 'member', source: 'scim' });
  });

  it('serves its service provider metadata: entity id and the ACS for the HTTP-POST binding', async () => {
    const res = await t.request({ url: '/auth/saml/corp/metadata' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/samlmetadata+xml');
    expect(res.body).toContain(`entityID="${SP_ENTITY}"`);
    expect(res.body).toMatch(new RegExp(`<AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${ACS}"`));
    expect((await t.request({ url: '/auth/saml/nope/metadata' })).statusCode).toBe(404);
  });

  it('answers bad input at the ACS with a problem, never a 500', async () => {
    const form = (body: string) => t.request({ method: 'POST', url: '/auth/saml/corp/acs', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
    expect((await form('')).statusCode).toBe(400);
    expect((await form('SAMLResponse=a&SAMLResponse=b')).statusCode).toBe(400);
    const before = await counts();
    await expectRefused(await form('SAMLResponse=not-base64!'), before, /not base64/);
    await expectRefused(await form(`SAMLResponse=${encodeURIComponent(Buffer.from('<nope').toString('base64'))}`), before, /not a well-formed SAML Response/);
    expect((await t.request({ method: 'POST', url: '/auth/saml/nope/acs', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'SAMLResponse=eA==' })).statusCode).toBe(404);
  });

  it('shares pending requests, answers and used assertions between instances: started on one, answered and completed on another, replayed on the first', async () => {
    // Another instance: its own app and connections on the same database, nothing else shared.
    const db = openDatabase(t.config.database);
    const other = await buildApp({ config: t.config, db, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
    try {
      idp.nextUser = { nameId: 'two-instances@corp.example', attributes: {} };
      const form = await startSignIn();
      const answered = await other.inject({
        method: 'POST', url: '/auth/saml/corp/acs', headers: { host: 'localhost:8080', 'content-type': 'application/x-www-form-urlencoded', origin: new URL(idp.ssoUrl).origin },
        payload: new URLSearchParams({ SAMLResponse: form.SAMLResponse }).toString(),
      });
      expect(answered.statusCode, answered.body).toBe(303);
      const completed = await other.inject({ url: answered.headers.location as string, headers: { host: 'localhost:8080', cookie: form.browser } });
      expect(completed.statusCode, completed.body).toBe(302);
      expect((await t.request({ url: '/api/v1/me', headers: { cookie: sessionCookie(completed) } })).json().login).toBe('two-instances@corp.example');
      await expectRefused(await post(form), await counts(), /replayed/);
    } finally {
      await other.close();
      await db.close();
    }
  });

  it('reads the metadata again after an hour, and keeps what it read when the IdP cannot answer then', async () => {
    idp.nextUser = { nameId: 'hourly@corp.example', attributes: {} };
    expect((await signIn(await startSignIn())).statusCode).toBe(302);
    idp.metadataDown = true;
    try {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61 * 60_000 });
      expect((await signIn(await startSignIn())).statusCode).toBe(302);
      expect(logged.some((l) => l.includes('could not read the SAML IdP metadata again') && l.includes('HTTP 503'))).toBe(true);
    } finally {
      vi.useRealTimers();
      idp.metadataDown = false;
    }
  });

  it('starts with an IdP that is down, and sends its sign-in back to the login screen, logging why', async () => {
    const res = await t.request({ url: '/auth/login/down' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/login?error=forge_failed');
    expect(logged.some((l) => l.includes('SAML sign-in could not start') && l.includes('IdP metadata'))).toBe(true);
  });
});

describe('SAML metadata URLs go through the SSRF guard', () => {
  it('refuses a metadata URL that reaches a loopback address unless SERVICE_SAML_ALLOW_PRIVATE is on', async () => {
    const idp = await startSamlIdp();
    const logged: string[] = [];
    const stream = new Writable({ write(chunk: Buffer, _enc, done) { logged.push(chunk.toString('utf8')); done(); } });
    // An https URL passes the start; the address it reaches is what the guard refuses.
    const provider = { id: 'inside', type: 'saml', name: 'Inside', idp_metadata_url: `https://${new URL(idp.metadataUrl).host}/saml/metadata` };
    const t = await createTestApp('sqlite', { SERVICE_PROVIDERS: JSON.stringify([provider]), LOG_LEVEL: 'warn' }, { stream });
    try {
      const res = await t.request({ url: '/auth/login/inside' });
      expect(res.headers.location).toBe('/login?error=forge_failed');
      expect(logged.join('')).toContain('refused: 127.0.0.1 is not a public address');
    } finally {
      await t.close();
      await idp.close();
    }
  });

});
