import { setImmediate } from 'node:timers/promises';
import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { Page } from '../db/page.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { FindingStore, DismissReason } from '../findings/store.js';
import type { Policy } from '../policy.js';
import { badRequest, notFound, refuseIds } from '../problem.js';
import { globProblem } from './glob.js';
import { suppressionMatcher, type SuppressionCriteria } from './match.js';
import type { SuppressionStore } from './store.js';

export interface NewSuppression {
  tool: string | null;
  ruleId: string | null;
  path: string | null;
  purl: string | null;
  advisory: string | null;
  repositoryIds: string[] | null;
  reason: DismissReason;
  comment: string | null;
  expiresAt: string | null;
}

/** Longest a rule's creation matches findings before letting the event loop answer others. */
const TURN_MS = 10;

/** An org's suppression rules: members read, owners manage. Creating one dismisses what it matches; deleting it reopens that. */
export function suppressionService(suppressions: SuppressionStore, findings: FindingStore, policy: Policy, audit: AuditStore) {
  return {
    async list(actor: Actor, orgId: string, page: Page) {
      await policy.require(actor, 'suppression.read', { orgId, what: 'The organization' });
      return suppressions.page(orgId, page);
    },

    async get(actor: Actor, orgId: string, id: string) {
      await policy.require(actor, 'suppression.read', { orgId, what: 'The organization' });
      const found = await suppressions.get(orgId, id);
      if (!found) throw notFound('The suppression rule');
      return found;
    },

    async create(actor: Actor, orgId: string, input: NewSuppression, ip: string) {
      await policy.require(actor, 'suppression.manage', { orgId, what: 'The organization' });
      if (!input.tool && !input.ruleId && !input.path && !input.purl && !input.advisory) {
        throw badRequest('A rule needs at least one of tool, rule_id, path, purl or advisory; it would dismiss everything.', [{ path: '', message: 'names nothing to match' }]);
      }
      const globFault = input.path === null ? null : globProblem(input.path);
      if (globFault) throw badRequest(`The path glob cannot be used: ${globFault}.`, [{ path: '/path', message: globFault }]);
      const orgRepos = new Set((await suppressions.repositoryIdsOf(orgId)).map((r) => r.id));
      if (input.repositoryIds) refuseIds('Some repositories are not in this organization.', 'repositories', input.repositoryIds, orgRepos, 'is not a repository of this organization');
      const id = newId();
      const at = now();
      const row = {
        id, org_id: orgId, tool: input.tool, rule_id: input.ruleId, path: input.path, purl: input.purl, advisory: input.advisory,
        repository_ids: input.repositoryIds ? JSON.stringify(input.repositoryIds) : null, reason: input.reason, comment: input.comment,
        expires_at: input.expiresAt, created_by: actor.user.id, created_at: at,
      };
      await suppressions.insert(row);
      const matches = suppressionMatcher(row satisfies SuppressionCriteria);
      let dismissed = 0;
      let turn = performance.now();
      for (const repositoryId of input.repositoryIds ?? orgRepos) {
        const matched = new Set<string>();
        for await (const page of suppressions.openFindings(repositoryId)) {
          for (const finding of page) {
            if (matches(finding)) matched.add(finding.fingerprint);
            // Other requests are answered in between, however many findings the org holds.
            if (performance.now() - turn > TURN_MS) {
              await setImmediate();
              turn = performance.now();
            }
          }
        }
        const fingerprints = [...matched];
        if (fingerprints.length === 0) continue;
        const change = { state: 'dismissed' as const, reason: input.reason, comment: input.comment, until: input.expiresAt };
        dismissed += (await findings.triage(repositoryId, fingerprints, change, 'dismissed_by_rule', actor.user.id, at, id))?.length ?? 0;
      }
      await audit.record({ action: 'suppression.created', actor: actor.user, orgId, ip, target: { type: 'suppression', id }, details: { ...input, dismissed } });
      return (await suppressions.get(orgId, id))!;
    },

    /** Deletes the rule and reopens the findings it dismissed that are still present (fixed ones simply lose the dismissal). */
    async remove(actor: Actor, orgId: string, id: string, ip: string): Promise<void> {
      await policy.require(actor, 'suppression.manage', { orgId, what: 'The organization' });
      if (!(await suppressions.get(orgId, id))) throw notFound('The suppression rule');
      let reopened = 0;
      for (const [repositoryId, fingerprints] of await suppressions.dismissedBy(id)) {
        reopened += (await findings.triage(repositoryId, fingerprints, { state: 'open', comment: null }, 'rule_deleted', actor.user.id, now()))?.length ?? 0;
      }
      await suppressions.remove(orgId, id);
      await audit.record({ action: 'suppression.deleted', actor: actor.user, orgId, ip, target: { type: 'suppression', id }, details: { reopened } });
    },
  };
}
