import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { epssProbability, inKev } from '../advisories/priorities-store.js';
import { readableBy } from '../policy-store.js';
import { knownAliases } from '../results/vulnerability-store.js';
import type { VulnerabilityFinding } from '../results/vulnerabilities.js';
import { graphRows } from '../results/store.js';
import type { PlanAdvisoryEntry, PlanFinding } from './plan.js';

/** Package keys per statement: well under either database's limit on bound parameters. */
const CHUNK = 1000;

export interface RefComponent {
  ref_id: string;
  id: string;
  analysis_id: string;
  package_key: string | null;
  version: string | null;
}

/** What an upgrade plan reads: a ref's open package findings, the advisories of their packages, and its SBOMs' graphs. */
export function remediationStore(db: Kysely<Database>) {
  return {
    /** These refs' open findings that name a package, with their KEV and EPSS standing, by ref. */
    async findings(refIds: readonly string[]): Promise<Map<string, PlanFinding[]>> {
      const byRef = new Map<string, PlanFinding[]>(refIds.map((id) => [id, []]));
      for (let i = 0; i < refIds.length; i += CHUNK) {
        const rows = await db.selectFrom('findings')
          .select(['findings.ref_id', 'findings.id', 'findings.rule_id', 'findings.aliases', 'findings.purl', 'findings.package_name', 'findings.package_version',
            'findings.severity', 'findings.fixed_versions', inKev().as('in_kev'), epssProbability().as('epss_probability')])
          .where('findings.ref_id', 'in', refIds.slice(i, i + CHUNK)).where('findings.purl', 'is not', null).where('findings.state', '=', 'open')
          .execute();
        for (const { ref_id: refId, ...row } of rows) byRef.get(refId)?.push(row as PlanFinding);
      }
      return byRef;
    },

    /** Every affected[] entry naming these packages, withdrawn ones included (the plan leaves them out). */
    async advisoryEntries(packageKeys: string[]): Promise<PlanAdvisoryEntry[]> {
      const out: PlanAdvisoryEntry[] = [];
      for (let i = 0; i < packageKeys.length; i += CHUNK) {
        out.push(...await db.selectFrom('advisory_packages').innerJoin('advisories', 'advisories.id', 'advisory_packages.advisory_id')
          .select(['advisory_packages.advisory_id', 'advisory_packages.ranges', 'advisory_packages.versions', 'advisories.aliases', 'advisories.withdrawn'])
          .select((eb) => eb.fn.coalesce('advisory_packages.package_key', eb.val('')).as('package_key'))
          .where('advisory_packages.package_key', 'in', packageKeys.slice(i, i + CHUNK)).execute());
      }
      return out;
    },

    known(findings: PlanFinding[]): Promise<[string, string][]> {
      return knownAliases(db, findings as unknown as VulnerabilityFinding[]);
    },

    /** These refs' components of these packages, to find their place in their SBOM's graph. */
    async components(refIds: readonly string[], packageKeys: string[]): Promise<RefComponent[]> {
      const out: RefComponent[] = [];
      for (let r = 0; r < refIds.length; r += CHUNK) {
        for (let i = 0; i < packageKeys.length; i += CHUNK) {
          out.push(...await db.selectFrom('components').innerJoin('analyses', 'analyses.id', 'components.analysis_id')
            .select(['analyses.ref_id', 'components.id', 'components.analysis_id', 'components.package_key', 'components.version'])
            .where('analyses.ref_id', 'in', refIds.slice(r, r + CHUNK)).where('components.package_key', 'in', packageKeys.slice(i, i + CHUNK)).execute());
        }
      }
      return out;
    },

    graph: (analysisId: string) => graphRows(db, analysisId),

    /** The repositories of an org that `readerId` may read (every one for null: a site administrator), by name. */
    readableRepositories(orgId: string, readerId: string | null): Promise<{ id: string; default_branch: string | null }[]> {
      return db.selectFrom('repos').select(['id', 'default_branch']).where('org_id', '=', orgId)
        .$if(readerId !== null, (q) => q.where(readableBy(readerId!))).orderBy('name').orderBy('id').execute();
    },

    /** The ref id of a branch of each repository, in one query; a branch without results has none. */
    async branchRefIds(branches: { repositoryId: string; branch: string }[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      for (let i = 0; i < branches.length; i += CHUNK) {
        const chunk = branches.slice(i, i + CHUNK);
        const wanted = new Set(chunk.map((b) => `${b.repositoryId}\n${b.branch}`));
        const rows = await db.selectFrom('refs').select(['id', 'repository_id', 'name']).where('kind', '=', 'branch')
          .where('repository_id', 'in', chunk.map((b) => b.repositoryId)).where('name', 'in', [...new Set(chunk.map((b) => b.branch))]).execute();
        for (const row of rows) if (wanted.has(`${row.repository_id}\n${row.name}`)) found.set(row.repository_id, row.id);
      }
      return found;
    },
  };
}
export type RemediationStore = ReturnType<typeof remediationStore>;
