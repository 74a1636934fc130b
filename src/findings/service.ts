import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import { now } from '../db/time.js';
import { conflict, notFound } from '../problem.js';
import { defaultBranch, requestedRef } from '../domain/ref-name.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { FindingStore, TriageChange, TriageFilters } from './store.js';
import { packagePlaces } from '../results/graph.js';

export type { TriageChange } from './store.js';

/** Which findings a bulk triage applies to: these ids, or what the findings list shows for a ref with these filters. */
export type TriageSelection = { ids: string[] } | { ref: string | undefined; filters: TriageFilters };


/** Reading one finding and its history, and triaging findings. */
export function findingService(findings: FindingStore, authorizedRepo: AuthorizedRepo, audit: AuditStore) {
  async function found(actor: Actor, id: string, action: 'finding.read' | 'finding.triage') {
    const finding = await findings.finding(id);
    if (!finding) throw notFound('The finding');
    const repo = await authorizedRepo(actor, finding.repository_id, action, 'The finding');
    return { finding, repo };
  }

  return {
    /**
     * One finding; a finding that names a package an SBOM of its ref lists carries where it comes
     * from: whether the package is a direct dependency, and the shortest path that pulls it in.
     */
    async get(actor: Actor, id: string) {
      const { finding } = await found(actor, id, 'finding.read');
      if (finding.purl === null) return finding;
      const places = await packagePlaces(await findings.componentsWithPurl(finding.ref_id, finding.purl), findings.graph);
      return { ...finding, place: places.get(finding.purl) };
    },

    /** Ingest's transitions from the finding row (its latest of each), the triage events from their table. */
    async history(actor: Actor, id: string) {
      const { finding } = await found(actor, id, 'finding.read');
      const uploads = [finding.first_upload_id, finding.fixed_upload_id, finding.reopened_upload_id].filter((u): u is string => u !== null);
      return { finding, events: await findings.events(finding.repository_id, finding.fingerprint), rematches: await findings.rematches(uploads) };
    },

    /** Dismisses or reopens one finding (its fingerprint, on every ref); a fixed finding has nothing to triage. */
    async triage(actor: Actor, id: string, change: TriageChange, ip: string) {
      const { finding, repo } = await found(actor, id, 'finding.triage');
      if (finding.state === 'fixed') throw conflict('The finding is fixed: only a present finding can be dismissed or reopened.');
      const changed = await findings.triage(finding.repository_id, [finding.fingerprint], change,
        change.state === 'dismissed' ? 'dismissed' : 'reopened_by_hand', actor.user.id, now());
      if (changed === null) throw notFound('The finding');
      if (changed.length > 0) {
        await audit.record({
          action: change.state === 'dismissed' ? 'finding.dismissed' : 'finding.reopened', actor: actor.user, orgId: repo.org_id, ip,
          target: { type: 'finding', id }, details: { repository_id: finding.repository_id, fingerprint: finding.fingerprint, ...change },
        });
      }
      return (await findings.finding(id))!;
    },

    /** Dismisses or reopens many findings of one repository at once; answers how many fingerprints changed. */
    async triageMany(actor: Actor, repoId: string, selection: TriageSelection, change: TriageChange, ip: string): Promise<number> {
      const repo = await authorizedRepo(actor, repoId, 'finding.triage');
      let fingerprints: string[];
      if ('ids' in selection) {
        fingerprints = await findings.fingerprintsOfIds(repoId, selection.ids);
      } else {
        const name = selection.ref ? requestedRef(selection.ref) : defaultBranch(repo.default_branch);
        const refId = await findings.refId(repoId, name);
        fingerprints = refId ? await findings.fingerprintsMatching(refId, selection.filters) : [];
      }
      const changed = fingerprints.length === 0 ? [] : await findings.triage(repoId, fingerprints, change,
        change.state === 'dismissed' ? 'dismissed' : 'reopened_by_hand', actor.user.id, now());
      if (changed === null) throw notFound('The repository');
      if (changed.length > 0) {
        await audit.record({
          action: change.state === 'dismissed' ? 'finding.dismissed' : 'finding.reopened', actor: actor.user, orgId: repo.org_id, ip,
          target: { type: 'repository', id: repoId }, details: { findings: changed.length, ...change },
        });
      }
      return changed.length;
    },

    /** Reopens what was dismissed until a time now past, recording the expiry in each finding's history. */
    async expireDismissals(at = now()): Promise<number> {
      let reopened = 0;
      for (const [repositoryId, fingerprints] of await findings.expiredDismissals(at)) {
        const changed = await findings.triage(repositoryId, fingerprints, { state: 'open', comment: null }, 'dismissal_expired', null, at);
        reopened += changed?.length ?? 0;
      }
      return reopened;
    },
  };
}
