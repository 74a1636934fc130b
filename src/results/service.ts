import type { Actor } from '../domain/actor.js';
import type { RepoStatusRow } from '../db/schema.js';
import type { Page, Paged } from '../db/page.js';
import { findingSla } from '../domain/sla.js';
import { badRequest, notFound } from '../problem.js';
import type { AdmitRepo, AuthorizedRepo } from '../repos/service.js';
import type { RepoWithScan } from '../repos/store.js';
import type { RefStore } from '../refs/store.js';
import { defaultBranch, refKey, requestedRef, sameRef, type RefName } from '../domain/ref-name.js';
import type { Severity } from '../domain/scan.js';
import type { FindingFilters, FindingWithAnalysis, PackagePlace, ResultsStore } from './store.js';
import { componentGraph, packagePlaces } from './graph.js';
import { diffComponents } from './components-diff.js';

export interface VulnerabilityFilters {
  state: 'open' | 'dismissed' | 'fixed' | 'all';
  severity?: Severity;
  tool?: string;
}

/** What a repository's refs hold now: their status, findings and components, as the caller may read them. */
export function resultsService(results: ResultsStore, refs: RefStore, authorizedRepo: AuthorizedRepo, admitRepo: AdmitRepo) {
  /**
   * The ref a read names (the default branch when none) and its row. A branch, tag or pull request
   * without results is 404; the default branch without results reads as empty.
   */
  async function refOf(repo: RepoWithScan, raw: string | undefined) {
    const defaultRef = defaultBranch(repo.default_branch);
    const name = raw ? requestedRef(raw, 'ref') : defaultRef;
    const row = await refs.byName(repo.id, name);
    if (!row && !sameRef(name, defaultRef)) throw notFound(`The ref "${refKey(name)}" of this repository`);
    return { name, row, defaultRef };
  }

  /**
   * The page's package findings with their place in their ref's SBOMs: one read of the components
   * they name per ref (a page lists one ref's findings, or with vs_base=fixed its base's), and one
   * pass over each SBOM graph that holds a transitive one.
   */
  async function withPlaces(items: FindingWithAnalysis[]): Promise<FindingWithAnalysis[]> {
    const purlsByRef = new Map<string, Set<string>>();
    for (const item of items) if (item.purl !== null) purlsByRef.set(item.ref_id, (purlsByRef.get(item.ref_id) ?? new Set()).add(item.purl));
    if (purlsByRef.size === 0) return items;
    const places = new Map<string, Map<string, PackagePlace>>();
    for (const [refId, purls] of purlsByRef) places.set(refId, await packagePlaces(await results.packageComponents(refId, [...purls]), results.graph));
    return items.map((item) => {
      const place = item.purl === null ? undefined : places.get(item.ref_id)?.get(item.purl);
      return place ? { ...item, place } : item;
    });
  }

  return {
    /**
     * One query reads the repository with the caller's role, its status row, the ref's row and its
     * analyses. The default branch's status is the repository's status row; another ref's is its own.
     */
    async status(actor: Actor, repoId: string, rawRef: string | undefined) {
      let requested: RefName | null = null;
      if (rawRef) {
        try {
          requested = requestedRef(rawRef, 'ref');
        } catch (error) {
          // Whoever may not see the repository learns nothing more from a malformed ref: 404 first.
          await authorizedRepo(actor, repoId, 'scan.read');
          throw error;
        }
      }
      const repo = await admitRepo(actor, await results.status(actor.user.id, repoId, requested), 'scan.read');
      const defaultRef = defaultBranch(repo.default_branch);
      const name = requested ?? defaultRef;
      // Unnamed, the query took default_branch as stored for the ref's name; spelled otherwise
      // (refs/heads/x, or no branch at all), the branch it means is read by name.
      const read = requested || sameRef(defaultRef, { kind: 'branch', name: repo.default_branch || 'main' }) ? repo
        : await results.status(actor.user.id, repoId, defaultRef);
      if (!read) throw notFound('The repository');
      if (sameRef(name, defaultRef)) return { ref: name, baseRef: null, row: statusRowOf(repo), analyses: read.analyses };
      const row = read.refRow();
      if (!row) throw notFound(`The ref "${refKey(name)}" of this repository`);
      return { ref: name, baseRef: row.base_ref, row, analyses: read.analyses };
    },

    async findings(actor: Actor, repoId: string, rawRef: string | undefined, filters: Omit<FindingFilters, 'vsBase'>, vsBase: 'new' | 'fixed' | undefined, page: Page) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const { name, row, defaultRef } = await refOf(repo, rawRef);
      if (vsBase && name.kind !== 'pull_request') {
        throw badRequest('vs_base compares a pull request with its base branch; name one with ref=pr/N.', [{ path: '/vs_base', message: 'needs a pull request ref' }]);
      }
      if (!row) return { total: 0, items: [] };
      // Judged by the service's clock, never the database's; the SLA as the repository's gate reads it.
      const context = { sla: await results.slaOf(repo.id), at: Date.now() };
      const withSla = async (paged: Paged<FindingWithAnalysis>) => ({
        ...paged, items: (await withPlaces(paged.items)).map((item) => ({ ...item, ...findingSla(context.sla, { ...item, kev_added_at: item.kev_added_at ?? null }, context.at) })),
      });
      if (!vsBase) return withSla(await results.findings(row.id, filters, page, context));
      if (filters.state !== 'open') {
        throw badRequest('vs_base lists open findings; leave state out or set it to open.', [{ path: '/state', message: 'must be open with vs_base' }]);
      }
      const base = await refs.byName(repo.id, { kind: 'branch', name: row.base_ref ?? defaultRef.name });
      return withSla(await results.findings(row.id, { ...filters, vsBase: { compare: vsBase, baseRefId: base?.id ?? null } }, page, context));
    },

    /** The findings list grouped by vulnerability: one item per vulnerability and package, in the group's state. */
    async vulnerabilities(actor: Actor, repoId: string, rawRef: string | undefined, filters: VulnerabilityFilters, page: Page) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const { row } = await refOf(repo, rawRef);
      if (!row) return { total: 0, items: [] };
      const groups = (await results.vulnerabilityGroups(row.id)).filter((g) => (filters.state === 'all' || g.state === filters.state)
        && (!filters.severity || g.severity === filters.severity) && (!filters.tool || g.tools.includes(filters.tool)));
      return { total: groups.length, items: groups.slice(page.offset, page.offset + page.perPage) };
    },

    async components(actor: Actor, repoId: string, rawRef: string | undefined, q: string | undefined, page: Page) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const { row } = await refOf(repo, rawRef);
      if (!row) return { total: 0, items: [] };
      return results.components(repo.id, row.id, q, page);
    },

    /**
     * What changed in the components between two refs or analyses of the repository (each named by
     * a ref name or an analysis id): packages added, removed, changed, licences changed, and the
     * vulnerabilities introduced and fixed.
     */
    async diff(actor: Actor, repoId: string, rawBase: string, rawHead: string) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const side = async (raw: string, field: 'base' | 'head') => {
        const analysis = await results.analysis(repo.id, raw);
        if (analysis) return results.diffSide({ refId: analysis.ref_id, analysisId: analysis.id });
        let name: RefName;
        try {
          name = requestedRef(raw, 'ref');
        } catch {
          throw badRequest(`${field} is neither an analysis of this repository nor a ref name.`, [{ path: `/${field}`, message: 'must be a ref name or an analysis id' }]);
        }
        const row = await refs.byName(repo.id, name);
        if (!row) throw notFound(`The ${field} ref "${refKey(name)}" of this repository`);
        return results.diffSide({ refId: row.id });
      };
      const [base, head] = [await side(rawBase, 'base'), await side(rawHead, 'head')];
      return diffComponents(base.components, head.components, base.findings, head.findings);
    },

    /**
     * How a component is pulled in: the paths from the direct dependencies of its SBOM down to it,
     * shortest first (at most 5), with how many there are. An SBOM without a graph has none.
     */
    async paths(actor: Actor, repoId: string, componentId: string) {
      const repo = await authorizedRepo(actor, repoId, 'scan.read');
      const component = await results.component(repo.id, componentId);
      if (!component) throw notFound('The component');
      if (component.direct === null) return { total: 0, paths: [] };
      return componentGraph(await results.graph(component.analysis_id)).paths(component.id);
    },
  };
}

function statusRowOf(repo: Pick<RepoWithScan, 'id' | keyof Omit<RepoStatusRow, 'repository_id'>>): RepoStatusRow | undefined {
  if (repo.state === null) return undefined;
  return {
    repository_id: repo.id, state: repo.state, last_upload_at: repo.last_upload_at, last_completed_at: repo.last_completed_at,
    open_critical: repo.open_critical ?? 0, open_high: repo.open_high ?? 0, open_medium: repo.open_medium ?? 0,
    open_low: repo.open_low ?? 0, open_info: repo.open_info ?? 0, components: repo.components ?? 0, vulnerabilities: repo.vulnerabilities,
  };
}
