import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { RepoStore } from '../repos/store.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { GateService } from '../gates/service.js';
import { hashKey } from '../auth/key-format.js';
import { notFound } from '../problem.js';
import { now } from '../db/time.js';
import type { BadgeStore } from './store.js';
import { findingsBadge, gateBadge } from './svg.js';

/** Recognisable to secret scanners, like API keys; 24 random bytes. */
const TOKEN_PREFIX = 'syb_';

export function badgeService(badges: BadgeStore, repos: RepoStore, authorizedRepo: AuthorizedRepo, gates: GateService, audit: AuditStore) {
  /**
   * The repository when the token is its badge token. Every miss (no such repository, no token
   * made, a wrong or missing token) is the same 404, so a badge URL reveals nothing without it.
   */
  async function repoForToken(repositoryId: string, token: string | undefined) {
    const stored = token ? await badges.tokenHash(repositoryId) : undefined;
    if (!token || !stored || !sameHash(stored, hashKey(token))) throw notFound('The badge');
    const repo = await repos.byId(repositoryId);
    if (!repo) throw notFound('The badge');
    return repo;
  }

  return {
    /** A new badge token for the repository (replacing any other), returned this once. */
    async rotateToken(actor: Actor, repositoryId: string, ip: string): Promise<{ token: string; createdAt: string }> {
      const repo = await authorizedRepo(actor, repositoryId, 'badge.manage');
      const token = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
      const createdAt = now();
      await badges.setToken(repositoryId, hashKey(token), createdAt);
      await audit.record({ action: 'badge_token.rotated', actor: actor.user, orgId: repo.org_id, ip, target: { type: 'repo', id: repositoryId } });
      return { token, createdAt };
    },

    async findingsSvg(repositoryId: string, token: string | undefined): Promise<string> {
      const repo = await repoForToken(repositoryId, token);
      if (repo.state === null || repo.state === 'never_scanned') return findingsBadge(null);
      return findingsBadge({
        critical: repo.open_critical ?? 0, high: repo.open_high ?? 0, medium: repo.open_medium ?? 0, low: repo.open_low ?? 0, info: repo.open_info ?? 0,
      });
    },

    async gateSvg(repositoryId: string, token: string | undefined): Promise<string> {
      const repo = await repoForToken(repositoryId, token);
      if (repo.last_completed_at === null) return gateBadge(null);
      return gateBadge((await gates.judgeRepository(repositoryId, repo.default_branch)).status);
    },
  };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
