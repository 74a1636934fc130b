import type { Actor } from '../domain/actor.js';
import { now } from '../db/time.js';
import { defaultBranch, requestedRef } from '../domain/ref-name.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { VexStore } from './store.js';

/** What a repository's VEX document states: its vulnerability findings and their triage. */
export function vexService(vex: VexStore, authorizedRepo: AuthorizedRepo) {
  return {
    /** The vulnerability findings of a ref (the default branch unless named) with their dismissals. */
    async statements(actor: Actor, repoId: string, rawRef: string | undefined) {
      const repo = await authorizedRepo(actor, repoId, 'vex.read');
      const name = rawRef ? requestedRef(rawRef) : defaultBranch(repo.default_branch);
      const refId = await vex.refId(repoId, name);
      // A ref never scanned has no vulnerabilities to state anything about: an empty document, not a 404.
      return { repo, rows: refId ? await vex.vulnerabilities(repoId, refId) : [], at: now() };
    },
  };
}
