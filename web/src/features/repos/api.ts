import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { pageInfo } from '../../api/pagination';
import { queryKeys, type FindingFilters, type PageFilters, type RefFilter } from '../../api/query-keys';
import type { Finding, ScanStatus } from '../../api/types';
import { isInProgress } from '../../lib/scan-state';

/** While an upload waits or is processed, the status is read this often. */
const BUSY_POLL_MS = 1000;
/**
 * Otherwise still this often: an upload from CI or a shell arrives without the page knowing, and
 * "this page updates by itself" has to be true for it too. The status is one small read.
 */
const IDLE_POLL_MS = 2500;

/** `?ref=` of a read: left out for the default branch ('' ). */
const refQuery = (ref: string | undefined) => (ref ? { ref } : {});

export const statusQuery = (id: string, ref = '') => ({
  queryKey: queryKeys.repoStatus(id, ref),
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (await call(api.GET('/api/v1/repos/{id}/status', { params: { path: { id }, query: refQuery(ref) }, signal }))).data,
});

export function useRepo(id: string) {
  return useQuery({
    queryKey: queryKeys.repoDetail(id),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}', { params: { path: { id } }, signal }))).data,
  });
}

export function useRepoStatus(id: string, ref: string, enabled = true) {
  return useQuery({
    ...statusQuery(id, ref),
    enabled,
    refetchInterval: (query) => (query.state.data && isInProgress(query.state.data.state) ? BUSY_POLL_MS : IDLE_POLL_MS),
  });
}

/** A new upload arrived, or one finished: the results (uploads, findings, components) changed too. */
export const resultsChanged = (before: ScanStatus, after: ScanStatus): boolean =>
  before.last_upload_at !== after.last_upload_at || before.last_completed_at !== after.last_completed_at || before.state !== after.state;

/** Uploads, findings and components of a repository are stale: read them again where shown. */
export function invalidateResults(client: QueryClient, repoId: string): Promise<void> {
  return client.invalidateQueries({ queryKey: queryKeys.repoResults(repoId) });
}

const UPLOADS_SHOWN = 100;

export function useUpload(id: string) {
  return useQuery({
    queryKey: queryKeys.upload(id),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/uploads/{id}', { params: { path: { id } }, signal }))).data,
    refetchInterval: (query) => (query.state.data && isInProgress(query.state.data.status) ? BUSY_POLL_MS : false),
  });
}

/** One ref's uploads (the ref's name as the status gives it, so the default branch's are its own too). */
export function useUploads(id: string, ref: string | undefined) {
  return useQuery({
    queryKey: queryKeys.repoUploads(id, ref ?? ''),
    enabled: ref !== undefined,
    queryFn: async ({ signal }) => {
      const { data, response } = await call(api.GET('/api/v1/repos/{id}/uploads', { params: { path: { id }, query: { per_page: UPLOADS_SHOWN, ...refQuery(ref) } }, signal }));
      return { uploads: data, total: Number(response.headers.get('x-total-count') ?? data.length) };
    },
    refetchInterval: (query) => (query.state.data?.uploads.some((u) => isInProgress(u.status)) ? BUSY_POLL_MS : false),
  });
}

const FINDINGS_PER_PAGE = 50;

export function useFindings(repoId: string, filters: FindingFilters) {
  return useQuery({
    queryKey: queryKeys.repoFindings(repoId, filters),
    queryFn: async ({ signal }) => {
      const query = {
        page: filters.page,
        per_page: FINDINGS_PER_PAGE,
        state: filters.state,
        ...(filters.severity ? { severity: filters.severity } : {}),
        ...(filters.tool ? { tool: filters.tool } : {}),
        ...(filters.q ? { q: filters.q } : {}),
        ...(filters.introducedIn ? { introduced_in: filters.introducedIn } : {}),
        ...(filters.fixedIn ? { fixed_in: filters.fixedIn } : {}),
        ...(filters.reopenedIn ? { reopened_in: filters.reopenedIn } : {}),
        ...(filters.vsBase ? { vs_base: filters.vsBase } : {}),
        ...refQuery(filters.ref),
      };
      const { data, response } = await call(api.GET('/api/v1/repos/{id}/findings', { params: { path: { id: repoId }, query }, signal }));
      // The list also answers text/csv (for exports), which this call never asks for.
      if (!Array.isArray(data)) throw new Error('The findings list did not answer JSON.');
      return { rows: data, info: pageInfo(response, FINDINGS_PER_PAGE) };
    },
    // Paging and filtering keep the rows on screen until the next ones arrive.
    placeholderData: (previous) => previous,
  });
}

const COMPONENTS_PER_PAGE = 50;

export function useComponents(repoId: string, filters: PageFilters & RefFilter) {
  return useQuery({
    queryKey: queryKeys.repoComponents(repoId, filters),
    queryFn: async ({ signal }) => {
      const { data, response } = await call(api.GET('/api/v1/repos/{id}/components', {
        params: { path: { id: repoId }, query: { page: filters.page, per_page: COMPONENTS_PER_PAGE, ...(filters.q ? { q: filters.q } : {}), ...refQuery(filters.ref) } },
        signal,
      }));
      return { rows: data, info: pageInfo(response, COMPONENTS_PER_PAGE) };
    },
    placeholderData: (previous) => previous,
  });
}

/** Open advisory findings read for the Components tab, 100 a page: enough for any real SBOM's vulnerable packages. */
const ADVISORY_PAGES = 10;

/**
 * The ref's open advisory matches by the purl of the component they name, so the Components tab can
 * mark vulnerable components on any page of it. They are the ref's `advisories` findings (the
 * matches are applied as that analysis's findings), so no second source of truth is asked.
 */
export function useComponentAdvisories(repoId: string, ref: string) {
  return useQuery({
    queryKey: queryKeys.repoComponentAdvisories(repoId, ref),
    queryFn: async ({ signal }) => {
      const byPurl = new Map<string, Finding[]>();
      for (let page = 1; page <= ADVISORY_PAGES; page++) {
        const { data, response } = await call(api.GET('/api/v1/repos/{id}/findings', {
          params: { path: { id: repoId }, query: { tool: 'advisories', state: 'open', page, per_page: 100, ...refQuery(ref) } },
          signal,
        }));
        if (!Array.isArray(data)) throw new Error('The findings list did not answer JSON.');
        for (const finding of data) {
          const purl = finding.package?.purl;
          if (purl) byPurl.set(purl, [...(byPurl.get(purl) ?? []), finding]);
        }
        if (page >= pageInfo(response, 100).lastPage) break;
      }
      return byPurl;
    },
  });
}

/** The refs with results, the default branch first; read again with the results. */
export function useRefs(repoId: string) {
  return useQuery({
    queryKey: queryKeys.repoRefs(repoId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/refs', { params: { path: { id: repoId }, query: { per_page: 100 } }, signal }))).data,
  });
}

export function useAnalyses(repoId: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.repoAnalyses(repoId),
    // Every ref's analyses in one list (no ?ref= filter): the largest page, matched to the ref shown by the caller.
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/analyses', { params: { path: { id: repoId }, query: { per_page: 100 } }, signal }))).data,
    enabled,
  });
}

/** Removes a wrong analysis with its findings and components; everything shown of the repository is read again. */
export function useRemoveAnalysis(repoId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (analysisId: string) =>
      (await call(api.DELETE('/api/v1/repos/{id}/analyses/{analysis_id}', { params: { path: { id: repoId, analysis_id: analysisId } } }))).data,
    onSuccess: () => Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.repo(repoId) }),
      client.invalidateQueries({ queryKey: queryKeys.dashboard }),
    ]),
  });
}

/** Removes a repository; its organization's lists and counts, and the dashboard, are read again. */
export function useRemoveRepo(orgId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (repoId: string) => (await call(api.DELETE('/api/v1/repos/{id}', { params: { path: { id: repoId } } }))).data,
    onSuccess: async (_data, repoId) => {
      client.removeQueries({ queryKey: queryKeys.repo(repoId) });
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.org(orgId) }),
        client.invalidateQueries({ queryKey: queryKeys.dashboard }),
      ]);
    },
  });
}

export function useAddRepo(orgId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; url?: string; default_branch?: string }) =>
      (await call(api.POST('/api/v1/orgs/{org_id}/repos', { params: { path: { org_id: orgId } }, body }))).data,
    onSuccess: () => Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.org(orgId) }),
      client.invalidateQueries({ queryKey: queryKeys.dashboard }),
    ]),
  });
}

/** A new badge token (the old one stops working); its badge URLs are in the answer, shown once. */
export function useRotateBadgeToken(repoId: string) {
  return useMutation({
    mutationFn: async () => (await call(api.POST('/api/v1/repos/{id}/badge-token', { params: { path: { id: repoId } } }))).data,
  });
}
