import type { CiIssuerConfig } from '../ci-issuers-config.js';

/**
 * What a verified job token says about the pipeline, the same for every CI: the repository (its
 * full name; for Bitbucket, which names none, the braced repositoryUuid), its immutable id, the
 * git ref it built spelt in full (refs/heads/…, refs/tags/…, refs/pull/N/merge), the commit, and
 * the event as trust rules name it.
 */
export interface CiIdentity {
  repository: string;
  repositoryId: string;
  ref: string;
  sha: string | null;
  /** push, pull_request or tag; anything else (GitHub's pull_request_target, workflow_run…) is `other` and matches no rule. */
  event: 'push' | 'pull_request' | 'tag' | 'other';
  environment: string | null;
  /** A pull request's base branch, when the token names it (GitHub's base_ref). */
  baseRef: string | null;
  /** The claims trust decisions were made on, for the audit log. */
  matched: Record<string, string>;
}

export class ClaimsError extends Error {}

type Claims = Record<string, unknown>;

function text(claims: Claims, name: string): string | null {
  const value = claims[name];
  if (typeof value === 'string' && value !== '') return value;
  // Some issuers send numeric ids (GitLab's runner_id); ids are compared as text.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return null;
}

function required(claims: Claims, name: string): string {
  const value = text(claims, name);
  if (value === null) throw new ClaimsError(`the token has no ${name} claim`);
  return value;
}

function pick(claims: Claims, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = text(claims, name);
    if (value !== null) out[name] = value;
  }
  return out;
}

function refEvent(ref: string, event: CiIdentity['event']): CiIdentity['event'] {
  return ref.startsWith('refs/tags/') ? 'tag' : event;
}

/** Reads the claims as the issuer's type documents them. Throws ClaimsError when a needed one is missing. */
export function identityOf(issuer: CiIssuerConfig, claims: Claims): CiIdentity {
  switch (issuer.type) {
    case 'github-actions': {
      // https://docs.github.com/en/actions/reference/security/oidc (custom claims provided by GitHub)
      const ref = required(claims, 'ref');
      const name = required(claims, 'event_name');
      // schedule and workflow_dispatch run the branch's own workflow: a push in all that matters here.
      // pull_request_target runs with the base branch's ref on behalf of a pull request: it matches no rule.
      const event = ['push', 'schedule', 'workflow_dispatch'].includes(name) ? 'push' : name === 'pull_request' ? 'pull_request' : 'other';
      const baseRef = text(claims, 'base_ref');
      return {
        repository: required(claims, 'repository'), repositoryId: required(claims, 'repository_id'), ref, sha: text(claims, 'sha'),
        event: refEvent(ref, event), environment: text(claims, 'environment'), baseRef: event === 'pull_request' ? baseRef : null,
        matched: pick(claims, ['sub', 'repository', 'repository_id', 'repository_owner', 'ref', 'sha', 'event_name', 'environment', 'base_ref', 'head_ref', 'workflow_ref', 'actor', 'run_id']),
      };
    }
    case 'gitlab': {
      // https://docs.gitlab.com/ci/secrets/id_token_authentication/ (token payload)
      const refName = required(claims, 'ref');
      const refType = required(claims, 'ref_type');
      const ref = text(claims, 'ref_path') ?? (refType === 'tag' ? `refs/tags/${refName}` : refType === 'branch' ? `refs/heads/${refName}` : null);
      if (ref === null) throw new ClaimsError(`the token's ref_type ${JSON.stringify(refType)} is neither branch nor tag`);
      const source = required(claims, 'pipeline_source');
      const event = ['push', 'web', 'schedule'].includes(source) ? 'push'
        : ['merge_request_event', 'external_pull_request_event'].includes(source) ? 'pull_request' : 'other';
      return {
        repository: required(claims, 'project_path'), repositoryId: required(claims, 'project_id'), ref, sha: text(claims, 'sha'),
        event: refEvent(ref, event), environment: text(claims, 'environment'), baseRef: null,
        matched: pick(claims, ['sub', 'project_path', 'project_id', 'namespace_path', 'ref', 'ref_type', 'ref_path', 'sha', 'pipeline_source', 'environment', 'user_login', 'pipeline_id', 'job_id']),
      };
    }
    case 'bitbucket': {
      // https://support.atlassian.com/bitbucket-cloud/docs/integrate-pipelines-with-resource-servers-using-oidc/
      // The token names no repository by name and no commit: the braced repositoryUuid is both.
      const uuid = required(claims, 'repositoryUuid');
      const branch = text(claims, 'branchName');
      if (branch === null) throw new ClaimsError('the token has no branchName claim (a tag or custom pipeline)');
      return {
        repository: uuid, repositoryId: uuid, ref: `refs/heads/${branch}`, sha: null, event: 'push',
        environment: text(claims, 'deploymentEnvironmentUuid'), baseRef: null,
        matched: pick(claims, ['sub', 'repositoryUuid', 'workspaceUuid', 'branchName', 'pipelineUuid', 'stepUuid', 'deploymentEnvironmentUuid']),
      };
    }
    case 'generic': {
      const map = issuer.claims!;
      const ref = required(claims, map.ref);
      const full = ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
      const raw = map.event ? text(claims, map.event) : null;
      const event = raw === null ? 'push' : raw === 'push' || raw === 'pull_request' || raw === 'tag' ? raw : 'other';
      return {
        repository: required(claims, map.repository), repositoryId: required(claims, map.repository_id), ref: full,
        sha: map.sha ? text(claims, map.sha) : null, event: refEvent(full, event), environment: null, baseRef: null,
        matched: pick(claims, ['sub', ...Object.values(map)]),
      };
    }
  }
}
