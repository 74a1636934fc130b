import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { ResponseBody } from '../../api/types';

// The endpoints also answer CSV (Accept: text/csv); the UI asks for JSON only.
export type MetricsSeries = Exclude<ResponseBody<'/api/v1/orgs/{id}/metrics', 'get'>, string>;
export type MetricsPoint = MetricsSeries['points'][number];
export type MetricsSummary = Exclude<ResponseBody<'/api/v1/orgs/{id}/metrics/summary', 'get'>, string>;

const DAY = 86_400_000;
/** The last `days` days that have ended (snapshots are written for finished UTC days). */
export function lastDays(days: number): { from: string; to: string } {
  const to = new Date(Date.now() - DAY).toISOString().slice(0, 10);
  const from = new Date(Date.now() - days * DAY).toISOString().slice(0, 10);
  return { from, to };
}

export function useOrgMetrics(orgId: string, interval: 'day' | 'week', team: string, days: number) {
  const range = lastDays(days);
  return useQuery({
    queryKey: ['orgs', orgId, 'metrics', interval, team, range.from, range.to],
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{id}/metrics', {
      params: { path: { id: orgId }, query: { ...range, interval, ...(team ? { team } : {}) } }, signal,
    }))).data as MetricsSeries,
  });
}

export function useOrgSummary(orgId: string, team: string) {
  return useQuery({
    queryKey: ['orgs', orgId, 'metrics', 'summary', team],
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{id}/metrics/summary', {
      params: { path: { id: orgId }, query: { window: '90d', ...(team ? { team } : {}) } }, signal,
    }))).data as MetricsSummary,
  });
}

export function useRepoMetrics(repoId: string, days: number) {
  const range = lastDays(days);
  return useQuery({
    queryKey: ['repos', repoId, 'metrics', range.from, range.to],
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/metrics', { params: { path: { id: repoId }, query: range }, signal }))).data as MetricsSeries,
  });
}
