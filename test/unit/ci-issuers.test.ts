import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { loadCiIssuers } from '../../src/ci-issuers-config.js';
import { issuerKeyCache } from '../../src/ci-identity/issuer-keys.js';
import { CiRefusal, verifyJobToken } from '../../src/ci-identity/verify.js';
import { ciGlobMatches } from '../../src/ci-identity/glob.js';
import { ClaimsError, identityOf } from '../../src/ci-identity/claims.js';
import { bitbucketClaims, githubClaims, gitlabClaims, startCiIssuer, type CiIssuer } from '../support/ci-issuer.js';

const issuers = (value: unknown, extra: Record<string, string> = {}) => loadConfig({ SERVICE_CI_ISSUERS: JSON.stringify(value), ...extra });

describe('SERVICE_CI_ISSUERS', () => {
  it('reads issuers, the audience defaulting to SERVICE_BASE_URL', () => {
    const config = issuers([{ id: 'github', type: 'github-actions', issuer: 'https://token.actions.githubusercontent.com' }], { SERVICE_BASE_URL: 'https://scanyard.example' });
    expect(config.ciIssuers).toEqual([{ id: 'github', type: 'github-actions', issuer: 'https://token.actions.githubusercontent.com', audience: 'https://scanyard.example', claims: null }]);
  });

  it('refuses http and private issuers unless SERVICE_CI_ALLOW_PRIVATE=true, and malformed entries, with one line naming the entry', () => {
    expect(() => issuers([{ id: 'gl', type: 'gitlab', issuer: 'http://gitlab.example.com' }])).toThrow(/SERVICE_CI_ISSUERS\[0\]: issuer .* must use https/);
    expect(() => issuers([{ id: 'gl', type: 'gitlab', issuer: 'https://10.0.0.5' }])).toThrow(/not a public address/);
    expect(() => issuers([{ id: 'gl', type: 'gitlab', issuer: 'https://localhost' }])).toThrow(ConfigError);
    expect(issuers([{ id: 'gl', type: 'gitlab', issuer: 'http://10.0.0.5' }], { SERVICE_CI_ALLOW_PRIVATE: 'true' }).ciIssuers).toHaveLength(1);
    expect(() => issuers([{ id: 'x', type: 'circleci', issuer: 'https://oidc.circleci.com/org/1' }])).toThrow(/type must be one of/);
    expect(() => issuers([{ id: 'x', type: 'generic', issuer: 'https://ci.example' }])).toThrow(/needs claims/);
    expect(() => issuers([{ id: 'x', type: 'generic', issuer: 'https://ci.example', claims: { repository: 'repo', repository_id: 'repo_id' } }])).toThrow(/claims.ref is required/);
    expect(() => issuers([{ id: 'a', type: 'gitlab', issuer: 'https://gitlab.com' }, { id: 'a', type: 'gitlab', issuer: 'https://gitlab.example' }])).toThrow(/used twice/);
    expect(() => loadConfig({ SERVICE_CI_ISSUERS: '[', SERVICE_CI_ISSUERS_FILE: '/x.yaml' })).toThrow(/both set/);
  });
});

describe('issuer keys are fetched through the private-address guard', () => {
  let issuer: CiIssuer;
  beforeAll(async () => {
    issuer = await startCiIssuer();
  });
  afterAll(() => issuer.close());

  it('refuses an issuer that is on a private address at fetch time unless private addresses are allowed', async () => {
    // Configured while allowed (as a DNS name could resolve to a private address later).
    const [config] = loadCiIssuers({ SERVICE_CI_ISSUERS: JSON.stringify([{ id: 'gh', type: 'github-actions', issuer: issuer.url }]) }, 'https://scanyard.example', true);
    const token = await issuer.sign(githubClaims(issuer.url, 'https://scanyard.example'));
    const refusal = await verifyJobToken(token, [config!], issuerKeyCache({ allowPrivate: false })).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(CiRefusal);
    expect((refusal as CiRefusal).reason).toBe('issuer');
    const verified = await verifyJobToken(token, [config!], issuerKeyCache({ allowPrivate: true }));
    expect(verified.identity).toMatchObject({ repository: 'acme/api', repositoryId: '74', ref: 'refs/heads/main', event: 'push' });
  });
});

describe('trust rule globs', () => {
  it('match within a segment, a final ** across segments, the rest literally', () => {
    expect(ciGlobMatches('acme/*', 'acme/api')).toBe(true);
    expect(ciGlobMatches('acme/*', 'acme/sub/api')).toBe(false);
    expect(ciGlobMatches('acme/**', 'acme/sub/api')).toBe(true);
    expect(ciGlobMatches('acme/**', 'acme')).toBe(false);
    expect(ciGlobMatches('refs/tags/v*', 'refs/tags/v1.2')).toBe(true);
    expect(ciGlobMatches('refs/tags/v*', 'refs/heads/v1')).toBe(false);
    expect(ciGlobMatches('{b2a9e5a4}', '{b2a9e5a4}')).toBe(true);
    expect(ciGlobMatches('acme/api', 'acme/api2')).toBe(false);
    expect(ciGlobMatches('*a*a*a*a*a*b', 'a'.repeat(200))).toBe(false);
  });
});

describe('job token claims read as one identity', () => {
  const base = { audience: 'https://scanyard.example', claims: null };
  it('GitLab: ref and ref_type become a full ref; merge request pipelines are pull_request events', () => {
    const gitlab = { ...base, id: 'gl', type: 'gitlab' as const, issuer: 'https://gitlab.example.com' };
    const { ref_path: _, ...tag } = gitlabClaims(gitlab.issuer, base.audience, { ref: 'v1.2', ref_type: 'tag', pipeline_source: 'push' });
    expect(identityOf(gitlab, tag)).toMatchObject({ repository: 'acme/api', repositoryId: '20', ref: 'refs/tags/v1.2', event: 'tag' });
    const mr = gitlabClaims(gitlab.issuer, base.audience, { pipeline_source: 'merge_request_event', ref: 'feature', ref_path: 'refs/heads/feature' });
    expect(identityOf(gitlab, mr)).toMatchObject({ ref: 'refs/heads/feature', event: 'pull_request' });
    expect(identityOf(gitlab, gitlabClaims(gitlab.issuer, base.audience, { pipeline_source: 'trigger' })).event).toBe('other');
  });

  it('generic: the configured claim names', () => {
    const generic = { ...base, id: 'ci', type: 'generic' as const, issuer: 'https://ci.example', claims: { repository: 'repo', repository_id: 'repo_id', ref: 'git_ref', sha: 'commit' } };
    expect(identityOf(generic, { repo: 'acme/api', repo_id: 9, git_ref: 'main', commit: 'abc1234' })).toMatchObject({ repository: 'acme/api', repositoryId: '9', ref: 'refs/heads/main', sha: 'abc1234', event: 'push' });
    expect(() => identityOf(generic, { repo: 'acme/api', git_ref: 'main' })).toThrow(ClaimsError);
  });

  it('Bitbucket: the repository is its UUID, the ref its branch, no commit', () => {
    const bitbucket = { ...base, id: 'bb', type: 'bitbucket' as const, issuer: 'https://api.bitbucket.org/2.0/workspaces/acme/pipelines-config/identity/oidc' };
    expect(identityOf(bitbucket, bitbucketClaims(bitbucket.issuer, 'aud'))).toMatchObject({ repository: '{b2a9e5a4-1f0c-4e8e-9d2a-4b6c1f0e7a11}', ref: 'refs/heads/main', sha: null });
    const { branchName: _, ...custom } = bitbucketClaims(bitbucket.issuer, 'aud');
    expect(() => identityOf(bitbucket, custom)).toThrow(ClaimsError);
  });
});
