import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { Database } from '../db/schema.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { Policy as AccessPolicy } from '../policy.js';
import { badRequest } from '../problem.js';
import { now } from '../db/time.js';
import { evaluateGate, judgedUpload } from './evaluate.js';
import { gateFacts, latestUploads, policyStore, type EffectivePolicy } from './store.js';
import { refIdOf } from '../refs/store.js';
import { defaultBranch } from '../domain/ref-name.js';
import type { Gate, Policy, RepoPolicy } from './types.js';
import { policyProblems, repoPolicyProblems } from './validate.js';

export interface RepoGate extends Gate {
  repositoryId: string;
  policy: EffectivePolicy;
  judgedAt: string;
  /** The upload fail_on_new's verdict is about (see judgedUpload); null before any on the default branch. */
  uploadId: string | null;
}

const ORG = 'The organization';

export function gateService(db: Kysely<Database>, authorizedRepo: AuthorizedRepo, access: AccessPolicy, audit: AuditStore) {
  const policies = policyStore(db);

  /**
   * The repository's default branch judged now: its open findings, their ages, KEV and licences as
   * they stand, and what the latest uploads brought (as their gates counted it) by fail_on_new as the
   * policy now says, so the repository fails while its latest upload's gate does. The gate API and
   * the gate badge both answer with this.
   */
  async function judgeRepository(repositoryId: string, configuredDefault: string | null): Promise<RepoGate> {
    const policy = await policies.effectivePolicy(repositoryId);
    const at = new Date();
    const refId = await refIdOf(db, repositoryId, defaultBranch(configuredDefault));
    const latest = refId === undefined ? [] : await latestUploads(db, refId);
    const gate = evaluateGate(policy.document, { ...await gateFacts(db, refId, policy.document, null, at), latestUploads: latest });
    return { ...gate, repositoryId, policy, judgedAt: at.toISOString(), uploadId: judgedUpload(policy.document, latest) };
  }

  return {
    judgeRepository,

    async orgPolicy(actor: Actor, orgId: string): Promise<Policy> {
      await access.require(actor, 'org_policy.read', { orgId, what: ORG });
      return policies.orgPolicy(orgId);
    },

    async setOrgPolicy(actor: Actor, orgId: string, document: Policy, ip: string): Promise<Policy> {
      await access.require(actor, 'org_policy.manage', { orgId, what: ORG });
      const problems = policyProblems(document);
      if (problems.length) throw badRequest('The policy is not valid.', problems);
      await policies.setOrgPolicy(orgId, document, now());
      await audit.record({ action: 'policy.updated', actor: actor.user, orgId, ip, target: { type: 'org', id: orgId }, details: { policy: document } });
      return document;
    },

    async repoPolicy(actor: Actor, repositoryId: string): Promise<RepoPolicy> {
      await authorizedRepo(actor, repositoryId, 'policy.read');
      const own = await policies.repoPolicy(repositoryId);
      return own ? { inherit: false, ...own } : { inherit: true };
    },

    async setRepoPolicy(actor: Actor, repositoryId: string, document: RepoPolicy, ip: string): Promise<RepoPolicy> {
      const repo = await authorizedRepo(actor, repositoryId, 'policy.manage');
      const problems = repoPolicyProblems(document);
      if (problems.length) throw badRequest('The policy is not valid.', problems);
      const { inherit, ...rules } = document;
      const own = inherit === false || inherit === undefined ? rules : null;
      await policies.setRepoPolicy(repositoryId, own, now());
      await audit.record({
        action: 'policy.updated', actor: actor.user, orgId: repo.org_id, ip,
        target: { type: 'repo', id: repositoryId }, details: { policy: own ?? { inherit: true } },
      });
      return own ? { inherit: false, ...own } : { inherit: true };
    },

    async repoGate(actor: Actor, repositoryId: string): Promise<RepoGate> {
      const repo = await authorizedRepo(actor, repositoryId, 'gate.read');
      return judgeRepository(repositoryId, repo.default_branch);
    },
  };
}
export type GateService = ReturnType<typeof gateService>;
