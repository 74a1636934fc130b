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
import type { RefComponent, RemediationStore } from './store.js';

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
  /**
   * The plans of these refs, each by its id: one read of their findings, of the advisories of all
   * their packages and of their components, whether one ref (a repository's plan) or every default
   * branch of an organisation; then each ref is planned from its own findings and graphs.
   */
  async function plansOf(refIds: readonly string[]): Promise<Map<string, Action[]>> {
    const plans = new Map<string, Action[]>(refIds.map((id) => [id, []]));
    const findingsByRef = await store.findings(refIds);
    const all = [...findingsByRef.values()].flat();
    if (all.length === 0) return plans;
    const keys = [...new Set(all.map((f) => packageOfPurl(f.purl)?.key).filter((key): key is string => key !== undefined))];
    const withFindings = [...findingsByRef].filter(([, findings]) => findings.length > 0).map(([refId]) => refId);
    const [entries, known, components] = await Promise.all([store.advisoryEntries(keys), store.known(all), store.components(withFindings, keys)]);
    const graphs = new Map<string, ComponentGraph>();
    for (const analysisId of new Set(components.map((c) => c.analysis_id))) graphs.set(analysisId, componentGraph(await store.graph(analysisId)));
    const componentsByRef = new Map<string, RefComponent[]>();
    for (const c of components) {
      const list = componentsByRef.get(c.ref_id);
      if (list) list.push(c);
      else componentsByRef.set(c.ref_id, [c]);
    }
    for (const [refId, findings] of findingsByRef) {
      if (findings.length === 0) continue;
      const own = componentsByRef.get(refId) ?? [];
      const viaOf = (packageKey: string, version: string): Via[] => {
        const via = new Map<string, Via>();
        for (const c of own) {
          if (c.package_key !== packageKey || c.version !== version) continue;
          for (const row of graphs.get(c.analysis_id)?.via(c.id) ?? []) via.set(`${row.name}@${row.version ?? ''}`, { name: row.name, version: row.version });
        }
        return [...via.values()].sort((a, b) => a.name.localeCompare(b.name));
      };
      plans.set(refId, planActions(findings, entries, known, viaOf));
    }
    return plans;
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
      const refId = (await refRowOf(repo, rawRef))?.id;
      return refId === undefined ? [] : (await plansOf([refId])).get(refId)!;
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
      const plans = await plansOf([...new Set(refIds.values())]);
      const grouped = new Map<string, OrgAction & { vulns: Set<string>; kevs: Set<string> }>();
      for (const repo of readable) {
        const refId = refIds.get(repo.id);
        for (const action of refId === undefined ? [] : plans.get(refId)!) {
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
