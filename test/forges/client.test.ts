import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createForge, pkcePair, randomState, type Forge } from '../../src/auth/forges/index.js';
import type { ProviderConfig } from '../../src/providers-config.js';
import { expectForgeError } from './helpers.js';

const SECRET = 'very-secret-client-secret';
const P = { code: 'the-code', codeVerifier: 'the-verifier', redirectUri: 'https://scanyard.example/cb' };

function config(type: ProviderConfig['type']): ProviderConfig {
  return {
    id: type,
    type,
    name: 'Forge',
    client_id: 'id',
    client_secret: SECRET,
    url: 'https://forge.example',
    api_url: 'https://forge.example/api',
    scopes: [],
    sync: null,
  };
}

/** A forge that answers each call with the next canned response. */
function canned(type: ProviderConfig['type'], ...answers: Array<() => Response>): { forge: Forge; urls: string[] } {
  const urls: string[] = [];
  const fake: typeof fetch = async (input) => {
    urls.push(String(input));
    const next = answers.shift();
    if (!next) throw new Error('no more canned answers');
    return next();
  };
  return { forge: createForge(config(type), { fetch: fake }), urls };
}

const json = (body: unknown, status = 200): (() => Response) => () => Response.json(body, { status });

describe('token answers', () => {
  it('never repeats an error code that echoes what we sent, nor the description', async () => {
    for (const error of [SECRET, 'x the-code', 'line\nbreak']) {
      const { forge } = canned('gitlab', json({ error, error_description: `bad ${SECRET}` }, 400));
      const err = await expectForgeError(forge.exchangeCode(P), 'rejected', [SECRET, P.code, P.codeVerifier]);
      expect(err.message).toBe('Forge did not accept the sign-in: unrecognised_error');
    }
  });

  it('rejects a success without an access token', async () => {
    const { forge } = canned('gitea', json({ token_type: 'bearer' }));
    await expectForgeError(forge.exchangeCode(P), 'malformed', [SECRET], 'without an access token');
  });

  it('does not follow a redirect from the token endpoint', async () => {
    const { forge, urls } = canned('github', () => new Response(null, { status: 307, headers: { Location: 'https://evil.example/' } }));
    await expectForgeError(forge.exchangeCode(P), 'http', [SECRET], 'answered HTTP 307');
    expect(urls).toEqual(['https://forge.example/login/oauth/access_token']);
  });
});

describe('profiles', () => {
  it('rejects a profile without an id', async () => {
    const { forge } = canned('github', json({ login: 'x' }));
    await expectForgeError(forge.fetchUser('tok'), 'malformed', ['tok'], 'without a usable id');
  });

  it('rejects a profile that is not an object', async () => {
    const { forge } = canned('gitlab', json([1, 2]));
    await expectForgeError(forge.fetchUser('tok'), 'malformed', ['tok'], 'unexpected user profile');
  });

  it('fails when GitHub /user/emails breaks for a reason other than scope', async () => {
    const { forge } = canned('github', json({ id: 1, login: 'a', email: null }), json({ message: 'boom' }, 502));
    await expectForgeError(forge.fetchUser('tok'), 'http', ['tok'], 'answered HTTP 502 while fetching the email addresses');
  });

  it('uses the Bitbucket nickname when the username is withheld, and maps empty fields to null', async () => {
    const { forge, urls } = canned(
      'bitbucket',
      json({ uuid: '{u}', nickname: 'nick', display_name: '', links: {} }),
      json({ values: [] }),
    );
    expect(await forge.fetchUser('tok')).toEqual({ forgeUserId: '{u}', login: 'nick', name: null, email: null, avatarUrl: null });
    expect(urls[0]).toBe('https://forge.example/api/2.0/user');
  });

  it('maps GitLab and Gitea field names', async () => {
    const gitlab = canned('gitlab', json({ id: 5, username: 'gl', name: 'G L', email: 'g@l', avatar_url: 'a' }));
    expect(await gitlab.forge.fetchUser('t')).toEqual({ forgeUserId: '5', login: 'gl', name: 'G L', email: 'g@l', avatarUrl: 'a' });
    const gitea = canned('forgejo', json({ id: 6, login: 'gt', full_name: '', email: 'g@t', avatar_url: 'b' }));
    expect(await gitea.forge.fetchUser('t')).toEqual({ forgeUserId: '6', login: 'gt', name: null, email: 'g@t', avatarUrl: 'b' });
  });
});

describe('pkcePair and randomState', () => {
  it('makes a 43-character base64url verifier whose SHA-256 is the challenge', () => {
    const { verifier, challenge } = pkcePair();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(pkcePair().verifier).not.toBe(verifier);
  });

  it('makes unguessable states', () => {
    const state = randomState();
    expect(state).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(randomState()).not.toBe(state);
  });
});
