import type { Actor } from '../domain/actor.js';
import { packageOfPurl } from '../domain/ecosystems/index.js';
import { defaultBranch, refKey, requestedRef, sameRef } from '../domain/ref-name.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import type { Severity } from '../domain/scan.js';
import { notFound } from '../problem.js';
import type { Policy } from '../policy.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { RepoWithScan } from '../repos/store.js';
import type { RefStore } from '../refs/store.js';
import { componentGraph, type ComponentGraph } from '../results/graph.js';
import { planActions, type Action, type Via } from './plan.js';
import type { RemediationStore } from './store.js';

/** One upgrade across an organization's repositories. */
export interface OrgAction {
  package: string;
  purl: string;
  ecosystem: string;
  /** The installed versions it replaces. */
  from: string[];
  to: string | null;
  /** Distinct vulnerability ids it fixes, across the repositories. */
  vulnerabilities: string[];
  severity: Severity;
  kev: number;
  epss: number | null;
  repositories: string[];
}

/** Upgrade plans: what to upgrade, to which version, fixing what, and where in the manifest. */
export function remediationService(store: RemediationStore, refs: RefStore, authorizedRepo: AuthorizedRepo, policy: Policy) {
  /** The plan of a ref's row (null: the ref has no results). */
  async function planOf(refId: string | null): Promise<Action[]> {
    if (refId === null) return [];
    const findings = await store.findings(refId);
    if (findings.length === 0) return [];
    const keys = [...new Set(findings.map((f) => packageOfPurl(f.purl)?.key).filter((key): key is string => key !== undefined))];
    const [entries, known, components] = await Promise.all([store.advisoryEntries(keys), store.known(findings), store.components(refId, keys)]);
    const graphs = new Map<string, ComponentGraph>();
    for (const analysisId of new Set(components.map((c) => c.analysis_id))) graphs.set(analysisId, componentGraph(await store.graph(analysisId)));
    const viaOf = (packageKey: string, version: string): Via[] => {
      const via = new Map<string, Via>();
      for (const c of components) {
        if (c.package_key !== packageKey || c.version !== version) continue;
        for (const row of graphs.get(c.analysis_id)?.via(c.id) ?? []) via.set(`${row.name}@${row.version ?? ''}`, { name: row.name, version: row.version });
      }
      return [...via.values()].sort((a, b) => a.name.localeCompare(b.name));
    };
    return planActions(findings, entries, known, viaOf);
  }

  async function refRowOf(repo: RepoWithScan, raw: string | undefined) {
    const fallback = defaultBranch(repo.default_branch);
    const name = raw ? requestedRef(raw, 'ref') : fallback;
    const row = await refs.byName(repo.id, name);
    if (!row && !sameRef(name, fallback)) throw notFound(`The ref "${refKey(name)}" of this repository`);
    return row ?? null;
  }

  return {
    /** A ref's upgrade plan, most risk removed first. */
    async repository(actor: Actor, repoId: string, rawRef: string | undefined): Promise<Action[]> {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      return planOf((await refRowOf(repo, rawRef))?.id ?? null);
    },

    /**
     * The same upgrade across every repository of the org the caller may read (policy-store.ts
     * readableBy: one query, as every list across repositories), on their default branches.
     */
    async organization(actor: Actor, orgId: string): Promise<OrgAction[]> {
      // Whoever may not see the org learns nothing, not even that it exists.
      await policy.require(actor, 'org.read', { orgId, what: 'The organization' });
      const readable = await store.readableRepositories(orgId, policy.repoReader(actor));
      const refIds = await store.branchRefIds(readable.map((repo) => ({ repositoryId: repo.id, branch: defaultBranch(repo.default_branch).name })));
      const grouped = new Map<string, OrgAction & { vulns: Set<string>; kevs: Set<string> }>();
      for (const repo of readable) {
        for (const action of await planOf(refIds.get(repo.id) ?? null)) {
          const key = `${action.purl}\n${action.to ?? ''}`;
          let group = grouped.get(key);
          if (!group) {
            group = { package: action.package, purl: action.purl, ecosystem: action.ecosystem, from: [], to: action.to, vulnerabilities: [], severity: 'info', kev: 0, epss: null, repositories: [], vulns: new Set(), kevs: new Set() };
            grouped.set(key, group);
          }
          if (!group.from.includes(action.from)) group.from.push(action.from);
          if (!group.repositories.includes(repo.id)) group.repositories.push(repo.id);
          for (const id of action.vulnerabilities) group.vulns.add(id);
          if (SEVERITY_RANK[action.severity] > SEVERITY_RANK[group.severity]) group.severity = action.severity;
          if (action.epss !== null && (group.epss === null || action.epss > group.epss)) group.epss = action.epss;
          for (const id of action.kevIds) group.kevs.add(id);
        }
      }
      return [...grouped.values()].map(({ vulns, kevs, ...group }) => ({ ...group, kev: kevs.size, vulnerabilities: [...vulns].sort(), from: group.from.sort() }))
        .sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || b.kev - a.kev
          || b.vulnerabilities.length - a.vulnerabilities.length || b.repositories.length - a.repositories.length || a.package.localeCompare(b.package));
    },
  };
}
