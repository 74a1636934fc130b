import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeUser } from '../../src/auth/forges/index.js';
import type { ForgeType } from '../../src/providers-config.js';
import { startForgeEmulator, type EmulatedForge, type EmulatedUser, type ForgeEmulator } from '../support/forge-emulator.js';
import { CALLBACK, clientFor, expectForgeError, visitAuthorize } from './helpers.js';

interface Case {
  type: ForgeType;
  user: EmulatedUser;
  expected: ForgeUser;
  /** The OAuth error code each forge documents for: wrong secret, wrong verifier, reused code, other redirect_uri. */
  errors: [secret: string, verifier: string, reused: string, redirect: string];
}

const avatar = (login: string): string => `https://avatars.example.com/${login}.png`;
const person = (id: number | string, login: string, email: string | null = `${login}@example.com`): EmulatedUser => ({
  id,
  login,
  name: `${login} Person`,
  email,
  avatarUrl: avatar(login),
});
const expected = (id: string, login: string, email: string | null = `${login}@example.com`): ForgeUser => ({
  forgeUserId: id,
  login,
  name: `${login} Person`,
  email,
  avatarUrl: avatar(login),
});
const BB_UUID = '{6e1c0f38-5a1b-4f6c-9a9e-1f2d3c4b5a69}';

const CASES: Case[] = [
  {
    type: 'github',
    user: person(583231, 'octocat'),
    expected: expected('583231', 'octocat'),
    errors: ['incorrect_client_credentials', 'bad_verification_code', 'bad_verification_code', 'redirect_uri_mismatch'],
  },
  {
    type: 'gitlab',
    user: person(42, 'jdoe'),
    expected: expected('42', 'jdoe'),
    errors: ['invalid_client', 'invalid_grant', 'invalid_grant', 'invalid_grant'],
  },
  {
    type: 'gitea',
    user: person(7, 'tea'),
    expected: expected('7', 'tea'),
    errors: ['unauthorized_client', 'unauthorized_client', 'unauthorized_client', 'invalid_grant'],
  },
  {
    type: 'forgejo',
    user: person(8, 'forge'),
    expected: expected('8', 'forge'),
    errors: ['unauthorized_client', 'unauthorized_client', 'unauthorized_client', 'invalid_grant'],
  },
  {
    type: 'bitbucket',
    user: { ...person(BB_UUID, 'bucket', null), emails: [{ email: 'bucket@example.com', primary: true, verified: true }] },
    expected: expected(BB_UUID, 'bucket'),
    errors: ['invalid_client', 'invalid_grant', 'invalid_grant', 'invalid_grant'],
  },
];

let emulator: ForgeEmulator;
beforeAll(async () => {
  emulator = await startForgeEmulator();
});
afterAll(async () => {
  await emulator.close();
});

describe.each(CASES)('$type sign-in', ({ type, user, expected, errors }) => {
  let forge: EmulatedForge;
  beforeAll(() => {
    forge = emulator.addForge({ type, redirectUri: CALLBACK });
    forge.setNextUser(user);
  });
  afterEach(() => {
    forge.setDeny(false);
    forge.setFailToken(null);
  });
  const secrets = (): string[] => [forge.config.client_secret, 'wrong-secret-value'];

  it('signs the user in: authorize, redirect with code and state, token, profile', async () => {
    const client = clientFor(forge);
    const visit = await visitAuthorize(client);
    expect(visit.status).toBeGreaterThanOrEqual(302);
    expect(visit.status).toBeLessThanOrEqual(303);
    expect(visit.location.origin + visit.location.pathname).toBe(CALLBACK);
    expect(visit.location.searchParams.get('state')).toBe(visit.state);
    expect(visit.code).not.toBe('');
    const token = await client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK });
    expect(await client.fetchUser(token)).toEqual(expected);
  });

  it('keeps the secret off the authorize URL and authenticates the token call as documented', async () => {
    forge.requests.length = 0;
    const client = clientFor(forge);
    const visit = await visitAuthorize(client);
    await client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK });
    const [authorize, tokenCall] = forge.requests;
    expect(authorize?.endpoint).toBe('authorize');
    expect(authorize?.url).not.toContain(forge.config.client_secret);
    expect(authorize?.query).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', state: visit.state });
    expect(tokenCall?.endpoint).toBe('token');
    expect(tokenCall?.headers['user-agent']).toBe('Scanyard');
    expect(tokenCall?.headers.accept).toBe('application/json');
    const body = new URLSearchParams(tokenCall?.body);
    expect(body.get('code_verifier')).toBe(visit.verifier);
    if (type === 'bitbucket') {
      expect(body.has('client_secret')).toBe(false);
      expect(tokenCall?.headers.authorization).toMatch(/^Basic /);
    } else {
      expect(body.get('client_secret')).toBe(forge.config.client_secret);
      expect(tokenCall?.headers.authorization).toBeUndefined();
    }
  });

  it('is refused with a wrong client secret', async () => {
    const client = clientFor(forge, { extra: { client_secret: 'wrong-secret-value' } });
    const visit = await visitAuthorize(client);
    const exchange = client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK });
    const err = await expectForgeError(exchange, 'rejected', [...secrets(), visit.code, visit.verifier], errors[0]);
    expect(err.message).toBe(`${forge.config.name} did not accept the sign-in: ${errors[0]}`);
  });

  it('is refused with a PKCE verifier that does not hash to the challenge', async () => {
    const client = clientFor(forge);
    const visit = await visitAuthorize(client);
    const other = (await visitAuthorize(client)).verifier;
    const exchange = client.exchangeCode({ code: visit.code, codeVerifier: other, redirectUri: CALLBACK });
    await expectForgeError(exchange, 'rejected', [...secrets(), visit.code, other], errors[1]);
  });

  it('is refused when a code is used a second time', async () => {
    const client = clientFor(forge);
    const visit = await visitAuthorize(client);
    const p = { code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK };
    await client.exchangeCode(p);
    await expectForgeError(client.exchangeCode(p), 'rejected', [...secrets(), visit.code], errors[2]);
  });

  it('is refused when the token call names another redirect_uri', async () => {
    const client = clientFor(forge);
    const visit = await visitAuthorize(client);
    const exchange = client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: `${CALLBACK}/elsewhere` });
    await expectForgeError(exchange, 'rejected', [...secrets(), visit.code], errors[3]);
  });

  it('shows an error page, not a redirect, for an unregistered redirect_uri', async () => {
    const client = clientFor(forge);
    const url = client.authorizeUrl({ state: 's', codeChallenge: 'x'.repeat(43), redirectUri: 'https://evil.example/cb' });
    const res = await fetch(url, { redirect: 'manual' });
    await res.arrayBuffer();
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('redirects back with error=access_denied when the user denies', async () => {
    forge.setDeny(true);
    const visit = await visitAuthorize(clientFor(forge));
    expect(visit.location.searchParams.get('error')).toBe('access_denied');
    expect(visit.location.searchParams.get('error_description')).toBeTruthy();
    expect(visit.location.searchParams.get('state')).toBe(visit.state);
    expect(visit.location.searchParams.has('code')).toBe(false);
  });

  it('gives up on a token endpoint that does not answer', async () => {
    const client = clientFor(forge, { timeoutMs: 150 });
    const visit = await visitAuthorize(client);
    forge.setFailToken('timeout');
    const started = Date.now();
    const exchange = client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK });
    await expectForgeError(exchange, 'timeout', secrets(), 'did not answer within 0.15 s');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it.each([
    ['500', 'http'],
    ['malformed', 'malformed'],
    ['error', 'rejected'],
  ] as const)('turns a token answer of kind %s into ForgeError(%s)', async (mode, kind) => {
    const client = clientFor(forge);
    const visit = await visitAuthorize(client);
    forge.setFailToken(mode);
    const exchange = client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK });
    await expectForgeError(exchange, kind, [...secrets(), visit.code, visit.verifier]);
  });

  it('reports a token the forge does not know as HTTP 401', async () => {
    const fetchUser = clientFor(forge).fetchUser('not-a-token');
    await expectForgeError(fetchUser, 'http', ['not-a-token'], 'answered HTTP 401 while fetching the user profile');
  });

  it('reports an unreachable forge', async () => {
    const client = clientFor(forge, { extra: { url: 'http://127.0.0.1:1', api_url: 'http://127.0.0.1:1/api' } });
    const exchange = client.exchangeCode({ code: 'c', codeVerifier: 'v', redirectUri: CALLBACK });
    await expectForgeError(exchange, 'unreachable', secrets(), 'could not be reached');
  });
});
