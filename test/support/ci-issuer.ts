import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A CI system's OIDC token issuer, as OpenID Connect Discovery 1.0 and RFC 7517 describe it: the
 * discovery document at {issuer}/.well-known/openid-configuration names jwks_uri and the signing
 * algorithms; the JWKS lists the public keys by kid. Keys are made with jose and can be rotated
 * (a new key published, the old one kept or withdrawn), as GitHub and GitLab do.
 */
export interface CiIssuer {
  url: string;
  /** How many times the JWKS was fetched. */
  jwksFetches: number;
  sign(claims: Record<string, unknown>, options?: { kid?: string; alg?: string; key?: CryptoKey }): Promise<string>;
  /** Publishes a new signing key; `withdrawOld` removes the previous ones from the JWKS. */
  rotate(withdrawOld: boolean): Promise<void>;
  currentKid(): string;
  close(): Promise<void>;
}

interface Key { kid: string; privateKey: CryptoKey; jwk: JWK }

async function newKey(n: number): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `key-${n}-${Math.random().toString(36).slice(2, 10)}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** `path` puts the issuer under a path (GitHub Enterprise's https://HOST/_services/token). */
export async function startCiIssuer(options: { path?: string; algorithms?: string[] } = {}): Promise<CiIssuer> {
  let keys: Key[] = [await newKey(1)];
  let made = 1;
  const path = options.path ?? '';
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url === `${path}/.well-known/openid-configuration`) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        issuer: issuer.url, jwks_uri: `${issuer.url}/.well-known/jwks`, subject_types_supported: ['public', 'pairwise'],
        response_types_supported: ['id_token'], claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'jti', 'nbf', 'ref', 'sha', 'repository'],
        id_token_signing_alg_values_supported: options.algorithms ?? ['RS256'], scopes_supported: ['openid'],
      }));
      return;
    }
    if (url === `${path}/.well-known/jwks`) {
      issuer.jwksFetches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer: CiIssuer = {
    url: `http://127.0.0.1:${port}${path}`,
    jwksFetches: 0,
    async sign(claims, opts = {}) {
      const key = keys.at(-1)!;
      return new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? 'RS256', typ: 'JWT', kid: opts.kid ?? key.kid }).sign(opts.key ?? key.privateKey);
    },
    async rotate(withdrawOld) {
      const fresh = await newKey(++made);
      keys = withdrawOld ? [fresh] : [...keys, fresh];
    },
    currentKid: () => keys.at(-1)!.kid,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return issuer;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * GitHub Actions' job token, field for field as the example in "OpenID Connect reference"
 * (https://docs.github.com/en/actions/reference/security/oidc, "Example subject claims" and
 * "Custom claims provided by GitHub").
 */
export function githubClaims(issuer: string, audience: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  return {
    jti: `example-id-${Math.random().toString(36).slice(2)}`,
    sub: 'repo:acme/api:ref:refs/heads/main',
    aud: audience,
    ref: 'refs/heads/main',
    sha: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4',
    repository: 'acme/api',
    repository_owner: 'acme',
    repository_owner_id: '65',
    actor_id: '12',
    repository_visibility: 'private',
    repository_id: '74',
    run_id: '5519841356',
    run_number: '10',
    run_attempt: '2',
    runner_environment: 'github-hosted',
    actor: 'octocat',
    workflow: 'scan',
    head_ref: '',
    base_ref: '',
    event_name: 'push',
    ref_type: 'branch',
    ref_protected: 'true',
    workflow_ref: 'acme/api/.github/workflows/scan.yml@refs/heads/main',
    workflow_sha: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4',
    job_workflow_ref: 'acme/api/.github/workflows/scan.yml@refs/heads/main',
    job_workflow_sha: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4',
    iss: issuer,
    nbf: iat - 5,
    exp: iat + 300,
    iat,
    ...over,
  };
}

/** GitLab CI's ID token, field for field as "Token payload" in https://docs.gitlab.com/ci/secrets/id_token_authentication/. */
export function gitlabClaims(issuer: string, audience: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  return {
    namespace_id: '72',
    namespace_path: 'acme',
    project_id: '20',
    project_path: 'acme/api',
    user_id: '1',
    user_login: 'sample-user',
    user_email: 'sample-user@example.com',
    user_access_level: 'developer',
    pipeline_id: '574',
    pipeline_source: 'push',
    job_id: '302',
    ref: 'main',
    ref_type: 'branch',
    ref_path: 'refs/heads/main',
    ref_protected: 'true',
    runner_id: 1,
    runner_environment: 'gitlab-hosted',
    sha: '714a629c0b401fdce83e847fc9589983fc6f46bc',
    project_visibility: 'private',
    ci_config_ref_uri: 'gitlab.example.com/acme/api//.gitlab-ci.yml@refs/heads/main',
    ci_config_sha: '714a629c0b401fdce83e847fc9589983fc6f46bc',
    jti: `235b3a54-b797-45c7-ae9a-${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`,
    iss: issuer,
    iat,
    nbf: iat - 5,
    exp: iat + 3600,
    sub: 'project_path:acme/api:ref_type:branch:ref:main',
    aud: audience,
    ...over,
  };
}

/**
 * Bitbucket Pipelines' step token (BITBUCKET_STEP_OIDC_TOKEN), as "Integrate Pipelines with resource
 * servers using OIDC" (https://support.atlassian.com/bitbucket-cloud/docs/integrate-pipelines-with-resource-servers-using-oidc/)
 * lists its claims: no jti, no commit, the repository only by its braced UUID.
 */
export function bitbucketClaims(issuer: string, audience: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = nowSeconds();
  return {
    sub: '{b2a9e5a4-1f0c-4e8e-9d2a-4b6c1f0e7a11}:{0f3c5b8e-9a1d-4c2b-8e7f-6a5d4c3b2a10}',
    aud: audience,
    stepUuid: '{0f3c5b8e-9a1d-4c2b-8e7f-6a5d4c3b2a10}',
    iss: issuer,
    repositoryUuid: '{b2a9e5a4-1f0c-4e8e-9d2a-4b6c1f0e7a11}',
    branchName: 'main',
    exp: iat + 3600,
    iat,
    pipelineUuid: '{7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f}',
    workspaceUuid: '{1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d}',
    ...over,
  };
}
