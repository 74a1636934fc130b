import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForge, type ForgeUser } from '../../src/auth/forges/index.js';
import { loadProviders } from '../../src/providers-config.js';
import { startForgeEmulator, type EmulatedForge, type ForgeEmulator } from '../support/forge-emulator.js';
import { CALLBACK, clientFor, visitAuthorize } from './helpers.js';

let emulator: ForgeEmulator;
let forge: EmulatedForge;
beforeAll(async () => {
  emulator = await startForgeEmulator();
  forge = emulator.addForge({ type: 'github' });
});
afterAll(async () => {
  await emulator.close();
});

async function signIn(extra: Record<string, unknown> = {}): Promise<ForgeUser> {
  const client = clientFor(forge, { extra });
  const visit = await visitAuthorize(client);
  return client.fetchUser(await client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK }));
}

const octocat = { id: 1, login: 'octocat', name: null, avatarUrl: null };

describe('GitHub email', () => {
  it('takes the verified primary address from /user/emails when the profile email is private', async () => {
    forge.setNextUser({
      ...octocat,
      email: null,
      emails: [
        { email: 'old@example.com', primary: false, verified: true },
        { email: 'primary@example.com', primary: true, verified: true },
      ],
    });
    expect((await signIn()).email).toBe('primary@example.com');
    expect(forge.requests.at(-1)?.endpoint).toBe('emails');
  });

  it('keeps the public profile email without asking /user/emails', async () => {
    forge.setNextUser({ ...octocat, email: 'public@example.com' });
    forge.requests.length = 0;
    expect((await signIn()).email).toBe('public@example.com');
    expect(forge.requests.map((r) => r.endpoint)).toEqual(['authorize', 'token', 'user']);
  });

  it('leaves email null when the primary address is unverified', async () => {
    forge.setNextUser({ ...octocat, email: null, emails: [{ email: 'new@example.com', primary: true, verified: false }] });
    expect((await signIn()).email).toBeNull();
  });

  it('leaves email null, without failing, when the token lacks user:email (GitHub answers 404)', async () => {
    forge.setNextUser({ ...octocat, email: null, emails: [{ email: 'hidden@example.com', primary: true, verified: true }] });
    const user = await signIn({ scopes: ['read:user'] });
    expect(user).toEqual({ forgeUserId: '1', login: 'octocat', name: null, email: null, avatarUrl: null });
  });
});

describe('GitHub requests', () => {
  it('calls the GHES API with Bearer, Accept JSON and a User-Agent', async () => {
    forge.setNextUser({ ...octocat, email: 'o@example.com' });
    await signIn();
    const user = forge.requests.at(-1);
    expect(user?.url).toBe(new URL(`${forge.apiUrl}/user`).pathname);
    expect(user?.headers.authorization).toMatch(/^Bearer gho_/);
    expect(user?.headers.accept).toBe('application/json');
    expect(user?.headers['user-agent']).toBe('Scanyard');
  });

  it('asks github.com with the default scopes when no url is configured', () => {
    const [config] = loadProviders({
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'gh', type: 'github', name: 'GitHub', client_id: 'abc', client_secret: 's3cr3t' }]),
    });
    const url = new URL(createForge(config!).authorizeUrl({ state: 'st', codeChallenge: 'ch', redirectUri: CALLBACK }));
    expect(url.origin + url.pathname).toBe('https://github.com/login/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'abc',
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'read:user user:email read:org',
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });
});
