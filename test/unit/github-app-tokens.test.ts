import { generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { GithubAppAnswerError, installationTokens, type AppRequest } from '../../src/github-app/installation-tokens.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const APP = { name: 'GitHub', apiUrl: 'https://api.github.example', appId: '12345', privateKey: pem };
const NOW = Date.parse('2026-11-29T01:00:00Z');

/**
 * GitHub's answers as its REST reference shows them: "Get a repository installation for the
 * authenticated app" / "Get an organization installation" ({id, account, ...}) and "Create an
 * installation access token for an app" (201 {token, expires_at, permissions, ...}).
 */
function github(expiresAt = '2026-11-29T02:00:00Z') {
  const requests: AppRequest[] = [];
  let minted = 0;
  const send = async (request: AppRequest) => {
    requests.push(request);
    if (request.step === 'installation') return { id: 42, account: { login: request.owner }, app_id: 12345, target_type: 'Organization' };
    minted++;
    return { token: `ghs_${minted}`, expires_at: expiresAt, permissions: { checks: 'write' }, repository_selection: 'all' };
  };
  return { send, requests, paths: () => requests.map((r) => `${r.method} ${r.url.slice(APP.apiUrl.length)}`) };
}

describe('GitHub App installation tokens', () => {
  it('find the installation with a JWT GitHub accepts, then mint its token', async () => {
    const gh = github();
    const tokens = installationTokens(APP, gh.send, () => NOW);
    expect(await tokens.forRepository('acme/payments')).toBe('ghs_1');
    expect(gh.paths()).toEqual(['GET /repos/acme/payments/installation', 'POST /app/installations/42/access_tokens']);
    // RS256 with the App's key, iss the App id, iat a minute back, exp within GitHub's 10 minutes.
    const { payload, protectedHeader } = await jwtVerify(gh.requests[0]!.jwt, publicKey, { currentDate: new Date(NOW), algorithms: ['RS256'] });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toEqual({ iss: '12345', iat: NOW / 1000 - 60, exp: NOW / 1000 + 540 });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
    expect(gh.requests[0]!.headers).toMatchObject({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
  });

  it("keep an owner's token until five minutes before it expires, whichever way it is asked for", async () => {
    const gh = github();
    let now = NOW;
    const tokens = installationTokens(APP, gh.send, () => now);
    expect(await tokens.forOrg('acme')).toBe('ghs_1');
    expect(gh.paths()).toEqual(['GET /orgs/acme/installation', 'POST /app/installations/42/access_tokens']);
    expect(await tokens.forRepository('ACME/api')).toBe('ghs_1');
    now = Date.parse('2026-11-29T01:54:59Z');
    expect(await tokens.forOrg('Acme')).toBe('ghs_1');
    expect(gh.requests).toHaveLength(2);
    now = Date.parse('2026-11-29T01:55:01Z');
    expect(await tokens.forRepository('acme/api')).toBe('ghs_2');
    // Another account has an installation of its own.
    expect(await tokens.forOrg('globex')).toBe('ghs_3');
    expect(gh.paths().slice(2)).toEqual(['GET /repos/acme/api/installation', 'POST /app/installations/42/access_tokens', 'GET /orgs/globex/installation', 'POST /app/installations/42/access_tokens']);
  });

  it('mint once for requests that ask at the same time', async () => {
    const gh = github();
    const tokens = installationTokens(APP, gh.send, () => NOW);
    expect(await Promise.all([tokens.forOrg('acme'), tokens.forOrg('acme'), tokens.forRepository('acme/x')])).toEqual(['ghs_1', 'ghs_1', 'ghs_1']);
    expect(gh.requests).toHaveLength(2);
  });

  it('refuse an answer without a token, and ask again next time', async () => {
    let answer: unknown = { message: 'odd' };
    const tokens = installationTokens(APP, async (r) => (r.step === 'installation' ? { id: 7 } : answer), () => NOW);
    await expect(tokens.forOrg('acme')).rejects.toThrow(GithubAppAnswerError);
    answer = { token: 'ghs_late', expires_at: '2026-11-29T02:00:00Z' };
    expect(await tokens.forOrg('acme')).toBe('ghs_late');
  });

  it("pass the caller's refusal on as it is", async () => {
    class Refused extends Error {}
    const tokens = installationTokens(APP, async () => {
      throw new Refused('HTTP 401');
    }, () => NOW);
    await expect(tokens.forRepository('acme/payments')).rejects.toBeInstanceOf(Refused);
  });
});
