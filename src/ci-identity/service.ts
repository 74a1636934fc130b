import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { CiIssuerConfig } from '../ci-issuers-config.js';
import type { ForgeType } from '../providers-config.js';
import type { CiTokenRow, CiTrustRuleRow, UserRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { Policy } from '../policy.js';
import { badRequest, notFound } from '../problem.js';
import { ciGlobMatches, ciGlobProblem } from './glob.js';
import type { IssuerKeyCache } from './issuer-keys.js';
import type { CiIdentityStore } from './store.js';
import { CiRefusal, CLOCK_SKEW_SECONDS, verifyJobToken, type VerifiedJobToken } from './verify.js';

export const CI_TOKEN_PREFIX = 'syc_';
/** A minted token lives at most this long: long enough for a scan upload and its gate, short enough to be worthless once leaked. */
export const CI_TOKEN_TTL_MS = 15 * 60 * 1000;
export const CI_EVENTS = ['push', 'pull_request', 'tag'] as const;

export interface NewTrustRule {
  issuer: string;
  repository: string;
  ref: string | null;
  event: (typeof CI_EVENTS)[number] | null;
  environment: string | null;
  targetRepoId: string | null;
}

export interface Exchanged {
  token: string;
  expiresAt: string;
  repositories: { id: string; org_id: string; name: string }[];
  ref: string;
  commitSha: string | null;
}

const ORG = 'The organization';

/** The forge whose pipelines each CI issuer type speaks for: its repository id claims are that forge's ids. */
const FORGE_OF_ISSUER: Partial<Record<CiIssuerConfig['type'], ForgeType>> = { 'github-actions': 'github', gitlab: 'gitlab', bitbucket: 'bitbucket' };

export function ciIdentityService(
  store: CiIdentityStore, policy: Policy, audit: AuditStore, issuers: readonly CiIssuerConfig[], keys: IssuerKeyCache,
  providerTypeOf: (providerId: string) => ForgeType | undefined,
) {
  /** The type of the forge the org is linked to (forge/), or null when it is not linked: the default rule applies only then. */
  async function linkedForgeType(orgId: string): Promise<ForgeType | null> {
    const provider = await store.forgeProviderOf(orgId);
    return provider === null ? null : providerTypeOf(provider) ?? null;
  }

  async function orgIsLinkedToForge(orgId: string): Promise<boolean> {
    return (await linkedForgeType(orgId)) !== null;
  }

  async function matchRules(verified: VerifiedJobToken) {
    const { issuer, identity } = verified;
    const grants: { repo: { id: string; org_id: string; name: string }; rule: string }[] = [];
    // An event no rule can name (GitHub's pull_request_target, GitLab's trigger pipelines) is trusted by none.
    if (identity.event === 'other') return grants;
    const repoName = identity.repository.toLowerCase();
    for (const rule of await store.rulesOfIssuer(issuer.id)) {
      if (!ciGlobMatches(rule.repository.toLowerCase(), repoName)) continue;
      if (rule.ref !== null && !ciGlobMatches(rule.ref, identity.ref)) continue;
      if (rule.event !== null && rule.event !== identity.event) continue;
      if (rule.environment !== null && rule.environment !== identity.environment) continue;
      const target = rule.target_repo_id !== null
        ? await store.repoInOrg(rule.org_id, rule.target_repo_id)
        : await store.repoByForgeId(rule.org_id, identity.repositoryId);
      if (!target) continue;
      // The first use pins the repository's immutable id under this name: a re-created repository
      // of the same name (another id) is not the one the owners trusted.
      const bound = await store.bind(rule.id, repoName, identity.repositoryId, now());
      if (bound !== identity.repositoryId) continue;
      grants.push({ repo: target, rule: rule.id });
    }
    // The default rule: in a forge-linked org, a repository's own pipelines may upload to it.
    // A generic issuer's ids are not the forge's, so it has none.
    if (issuer.type !== 'generic') {
      for (const repo of await store.reposByForgeIdWithDefaultRule(identity.repositoryId)) {
        if (repo.full_name !== null && repo.full_name.toLowerCase() !== repoName) continue;
        // A GitHub repository id and a GitLab project id can be the same number: only the linked forge's own pipelines.
        const forge = await linkedForgeType(repo.org_id);
        if (forge === null || forge !== FORGE_OF_ISSUER[issuer.type]) continue;
        grants.push({ repo, rule: 'default' });
      }
    }
    return grants;
  }

  return {
    orgIsLinkedToForge,

    async rules(actor: Actor, orgId: string, page: Page) {
      await policy.require(actor, 'ci_trust.read', { orgId, what: ORG });
      return store.rulesPage(orgId, page);
    },

    async defaultRule(actor: Actor, orgId: string) {
      await policy.require(actor, 'ci_trust.read', { orgId, what: ORG });
      const enabled = (await store.defaultRule(orgId)) ?? true;
      return { enabled, applies: enabled && (await orgIsLinkedToForge(orgId)) };
    },

    async setDefaultRule(actor: Actor, orgId: string, enabled: boolean, ip: string) {
      await policy.require(actor, 'ci_trust.manage', { orgId, what: ORG });
      await store.setDefaultRule(orgId, enabled);
      await audit.record({ action: 'ci.default_rule.changed', actor: actor.user, orgId, ip, details: { enabled } });
      return { enabled, applies: enabled && (await orgIsLinkedToForge(orgId)) };
    },

    async create(actor: Actor, orgId: string, input: NewTrustRule, ip: string): Promise<CiTrustRuleRow> {
      await policy.require(actor, 'ci_trust.manage', { orgId, what: ORG });
      if (!issuers.some((i) => i.id === input.issuer)) {
        throw badRequest(`The issuer ${JSON.stringify(input.issuer)} is not configured; SERVICE_CI_ISSUERS names ${issuers.map((i) => i.id).join(', ') || 'none'}.`, [{ path: '/issuer', message: 'is not a configured CI issuer' }]);
      }
      for (const [field, value] of [['repository', input.repository], ['ref', input.ref]] as const) {
        const problem = value === null ? null : ciGlobProblem(value);
        if (problem) throw badRequest(`The ${field} glob cannot be used: ${problem}.`, [{ path: `/${field}`, message: problem }]);
      }
      if (input.ref !== null && !input.ref.startsWith('refs/')) {
        throw badRequest('ref is a glob over full refs, such as refs/heads/main or refs/tags/v*.', [{ path: '/ref', message: 'must start with refs/' }]);
      }
      if (input.targetRepoId !== null && !(await store.repoInOrg(orgId, input.targetRepoId))) {
        throw badRequest('target_repo_id is not a repository of this organization.', [{ path: '/target_repo_id', message: 'is not a repository of this organization' }]);
      }
      const row: CiTrustRuleRow = {
        id: newId(), org_id: orgId, issuer: input.issuer, repository: input.repository, ref: input.ref, event: input.event,
        environment: input.environment, target_repo_id: input.targetRepoId, created_by: actor.user.id, created_at: now(),
      };
      await store.insertRule(row);
      await audit.record({ action: 'ci.trust_rule.created', actor: actor.user, orgId, target: { type: 'ci_trust_rule', id: row.id }, ip, details: { ...row } });
      return row;
    },

    async remove(actor: Actor, orgId: string, ruleId: string, ip: string): Promise<void> {
      await policy.require(actor, 'ci_trust.manage', { orgId, what: ORG });
      if (!(await store.removeRule(orgId, ruleId))) throw notFound('The trust rule');
      await audit.record({ action: 'ci.trust_rule.deleted', actor: actor.user, orgId, target: { type: 'ci_trust_rule', id: ruleId }, ip });
    },

    /**
     * A job token for a short-lived upload token. Verified first; then used up (once, on any
     * instance); then the org rules say where it may upload. Refusals throw CiRefusal.
     */
    async exchange(jobToken: string, ip: string): Promise<Exchanged> {
      const verified = await verifyJobToken(jobToken, issuers, keys);
      const keepUntil = new Date(verified.expiresAt + CLOCK_SKEW_SECONDS * 1000).toISOString();
      if (!(await store.useOnce(verified.useKey, keepUntil))) throw new CiRefusal('replayed', 'This token was exchanged before.');
      const grants = await matchRules(verified);
      if (grants.length === 0) throw new CiRefusal('no_rule', 'No trust rule allows this token.');
      const { identity, issuer } = verified;
      const secret = `${CI_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const at = now();
      const expiresAt = new Date(Date.parse(at) + CI_TOKEN_TTL_MS).toISOString();
      const repos = [...new Map(grants.map((g) => [g.repo.id, g.repo])).values()];
      const orgIds = [...new Set(repos.map((r) => r.org_id))];
      const id = newId();
      await store.insertToken({
        id, token_hash: hashCiToken(secret), issuer: issuer.id, repository: identity.repository, org_ids: JSON.stringify(orgIds),
        repository_ids: JSON.stringify(repos.map((r) => r.id)), ref: identity.ref, event: identity.event, base_ref: identity.baseRef,
        commit_sha: identity.sha?.toLowerCase() ?? null, claims: JSON.stringify(identity.matched), created_at: at, expires_at: expiresAt,
      });
      for (const orgId of orgIds) {
        await audit.record({
          action: 'ci.token.exchanged', actor: null, orgId, target: { type: 'ci_token', id }, ip,
          details: {
            issuer: issuer.id, rules: grants.filter((g) => g.repo.org_id === orgId).map((g) => g.rule),
            repositories: repos.filter((r) => r.org_id === orgId).map((r) => r.id), claims: identity.matched, expires_at: expiresAt,
          },
        });
      }
      return { token: secret, expiresAt, repositories: repos.map(({ id: rid, org_id, name }) => ({ id: rid, org_id, name })), ref: identity.ref, commitSha: identity.sha };
    },

    /** The guard's question: who a CI token is, while it lives (undefined: unknown or expired). */
    async actorOf(secret: string): Promise<Actor | undefined> {
      if (!secret.startsWith(CI_TOKEN_PREFIX)) return undefined;
      const row = await store.findActiveToken(hashCiToken(secret), now());
      return row ? ciActor(row) : undefined;
    },

    prune: () => store.prune(now()),
  };
}

export function hashCiToken(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function ciActor(row: CiTokenRow): Actor {
  // Nobody's account: no membership, no admin, never written anywhere (uploads name the token).
  const user: UserRow = {
    id: `ci-token:${row.id}`, login: `ci:${row.issuer}:${row.repository}`, name: null, email: null, avatar_url: null, is_admin: 0,
    provider_id: `ci:${row.issuer}`, forge_user_id: null, created_at: row.created_at, updated_at: row.created_at, last_login_at: null,
  };
  return {
    user, isAdmin: false, via: 'ci_token', sessionId: null,
    key: { id: row.id, scope: 'upload', orgIds: JSON.parse(row.org_ids) as string[] },
    ci: {
      tokenId: row.id, repositoryIds: JSON.parse(row.repository_ids) as string[], ref: row.ref, event: row.event,
      baseRef: row.base_ref, commitSha: row.commit_sha,
    },
  };
}
