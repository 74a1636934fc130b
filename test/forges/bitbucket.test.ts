import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForge, type ForgeUser } from '../../src/auth/forges/index.js';
import { loadProviders } from '../../src/providers-config.js';
import { startForgeEmulator, type EmulatedForge, type ForgeEmulator } from '../support/forge-emulator.js';
import { CALLBACK, clientFor, visitAuthorize } from './helpers.js';

let emulator: ForgeEmulator;
let forge: EmulatedForge;
beforeAll(async () => {
  emulator = await startForgeEmulator();
  forge = emulator.addForge({ type: 'bitbucket', clientId: 'consumer-key', clientSecret: 'consumer-secret' });
});
afterAll(async () => {
  await emulator.close();
});

const uuid = '{0f0e0d0c-0b0a-4909-8807-060504030201}';
const base = { id: uuid, login: 'bbuser', name: 'Bit Bucket', email: null, avatarUrl: 'https://bitbucket.org/account/bbuser/avatar/' };

async function signIn(extra: Record<string, unknown> = {}): Promise<ForgeUser> {
  const client = clientFor(forge, { extra });
  const visit = await visitAuthorize(client);
  return client.fetchUser(await client.exchangeCode({ code: visit.code, codeVerifier: visit.verifier, redirectUri: CALLBACK }));
}

describe('Bitbucket', () => {
  it('keeps the uuid as forgeUserId and takes the confirmed primary address from /2.0/user/emails', async () => {
    forge.setNextUser({
      ...base,
      emails: [
        { email: 'second@example.com', primary: false, verified: true },
        { email: 'main@example.com', primary: true, verified: true },
      ],
    });
    expect(await signIn()).toEqual({
      forgeUserId: uuid,
      login: 'bbuser',
      name: 'Bit Bucket',
      email: 'main@example.com',
      avatarUrl: 'https://bitbucket.org/account/bbuser/avatar/',
    });
    const emails = new URL(`${forge.apiUrl}/2.0/user/emails?pagelen=100`);
    expect(forge.requests.at(-1)?.url).toBe(emails.pathname + emails.search);
  });

  it('leaves email null, without failing, when the consumer lacks the email scope (403)', async () => {
    forge.setNextUser({ ...base, emails: [{ email: 'main@example.com', primary: true, verified: true }] });
    expect((await signIn({ scopes: ['account'] })).email).toBeNull();
  });

  it('sends the client credentials only as HTTP Basic on the token call', async () => {
    forge.setNextUser({ ...base });
    forge.requests.length = 0;
    await signIn();
    const tokenCall = forge.requests.find((r) => r.endpoint === 'token');
    expect(tokenCall?.headers.authorization).toBe(`Basic ${Buffer.from('consumer-key:consumer-secret').toString('base64')}`);
    expect(tokenCall?.body).not.toContain('consumer-secret');
    expect(tokenCall?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('defaults to bitbucket.org and api.bitbucket.org', () => {
    const [config] = loadProviders({
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'bb', type: 'bitbucket', name: 'Bitbucket', client_id: 'k', client_secret: 's' }]),
    });
    expect(config).toMatchObject({ url: 'https://bitbucket.org', api_url: 'https://api.bitbucket.org', scopes: ['account', 'email'] });
    const url = new URL(createForge(config!).authorizeUrl({ state: 's', codeChallenge: 'c', redirectUri: CALLBACK }));
    expect(url.origin + url.pathname).toBe('https://bitbucket.org/site/oauth2/authorize');
  });
});
