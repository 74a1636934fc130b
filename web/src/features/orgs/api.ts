import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { pageInfo } from '../../api/pagination';
import { queryKeys, type PageFilters } from '../../api/query-keys';
import type { Member } from '../../api/types';
import { countsOf } from '../dashboard/overview';

export function useOrg(id: string) {
  return useQuery({
    queryKey: queryKeys.orgDetail(id),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{id}', { params: { path: { id } }, signal }))).data,
  });
}

const REPOS_PER_PAGE = 25;

export function useOrgRepos(orgId: string, filters: PageFilters) {
  return useQuery({
    queryKey: queryKeys.orgRepos(orgId, filters),
    queryFn: async ({ signal }) => {
      const { data, response } = await call(api.GET('/api/v1/orgs/{org_id}/repos', {
        params: { path: { org_id: orgId }, query: { page: filters.page, per_page: REPOS_PER_PAGE, ...(filters.q ? { q: filters.q } : {}) } },
        signal,
      }));
      const rows = data.map((repo) => ({ repo, status: repo.scan, counts: countsOf(repo.scan) }));
      return { rows, info: pageInfo(response, REPOS_PER_PAGE) };
    },
    placeholderData: (previous) => previous,
  });
}

/** Every member of an organization (the team editor offers all of them), read 100 at a time. */
export function useMembers(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgMembers(orgId),
    queryFn: async ({ signal }) => {
      const all: Member[] = [];
      for (let page = 1; page <= 50; page++) {
        const { data, response } = await call(api.GET('/api/v1/orgs/{id}/members', { params: { path: { id: orgId }, query: { page, per_page: 100 } }, signal }));
        all.push(...data);
        const total = Number(response.headers.get('x-total-count') ?? all.length);
        if (data.length === 0 || all.length >= total) break;
      }
      return all;
    },
  });
}

export function useTeams(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgTeams(orgId),
    queryFn: async ({ signal }) => {
      const { data, response } = await call(api.GET('/api/v1/orgs/{org_id}/teams', { params: { path: { org_id: orgId }, query: { per_page: 100 } }, signal }));
      return { teams: data, total: Number(response.headers.get('x-total-count') ?? data.length) };
    },
  });
}

/** An organization's lists and counts, and the user's own memberships, after a change to them. */
function useInvalidateOrg(orgId: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: queryKeys.org(orgId) });
}

/** Adds a member with a role, or changes a member's role (the same PUT). */
export function useSetMemberRole(orgId: string) {
  const invalidate = useInvalidateOrg(orgId);
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ userId, role }: { userId: string; role: 'owner' | 'member'; login?: string }) =>
      (await call(api.PUT('/api/v1/orgs/{id}/members/{user_id}', { params: { path: { id: orgId, user_id: userId } }, body: { role } }))).data,
    // Changing one's own role changes what the session may do here.
    onSuccess: () => Promise.all([invalidate(), client.invalidateQueries({ queryKey: queryKeys.me })]),
  });
}

export function useRemoveMember(orgId: string) {
  const invalidate = useInvalidateOrg(orgId);
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (userId: string) =>
      (await call(api.DELETE('/api/v1/orgs/{id}/members/{user_id}', { params: { path: { id: orgId, user_id: userId } } }))).data,
    onSuccess: () => Promise.all([invalidate(), client.invalidateQueries({ queryKey: queryKeys.me })]),
  });
}

interface TeamBody {
  name: string;
  description: string;
  members: string[];
}

export function useSaveTeam(orgId: string) {
  const invalidate = useInvalidateOrg(orgId);
  return useMutation({
    mutationFn: async ({ teamId, body }: { teamId?: string; body: TeamBody }) => {
      if (teamId) await call(api.PUT('/api/v1/teams/{id}', { params: { path: { id: teamId } }, body }));
      else await call(api.POST('/api/v1/orgs/{org_id}/teams', { params: { path: { org_id: orgId } }, body }));
    },
    onSuccess: invalidate,
  });
}

export function useDeleteTeam(orgId: string) {
  const invalidate = useInvalidateOrg(orgId);
  return useMutation({
    mutationFn: async (teamId: string) => (await call(api.DELETE('/api/v1/teams/{id}', { params: { path: { id: teamId } } }))).data,
    onSuccess: invalidate,
  });
}

export function useCreateOrg() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; description?: string }) => (await call(api.POST('/api/v1/orgs', { body }))).data,
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.me }), client.invalidateQueries({ queryKey: queryKeys.dashboard })]),
  });
}

export function useUserSearch(q: string) {
  return useQuery({
    queryKey: queryKeys.users(q),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/users', { params: { query: { q } }, signal }))).data,
    enabled: q !== '',
  });
}

export type RepoRole = 'read' | 'triage' | 'admin';

const teamReposKey = (orgId: string, teamId: string) => [...queryKeys.orgTeams(orgId), teamId, 'repos'] as const;

/** The repositories a team holds, with its role on each (the first 100, by name). */
export function useTeamRepos(orgId: string, teamId: string) {
  return useQuery({
    queryKey: teamReposKey(orgId, teamId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/teams/{id}/repos', { params: { path: { id: teamId }, query: { per_page: 100 } }, signal }))).data,
  });
}

/** The organization's repositories a team could be given (the first 100, oldest first). */
export function useRepoChoices(orgId: string, enabled: boolean) {
  return useQuery({
    queryKey: [...queryKeys.org(orgId), 'repo-choices'] as const,
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{org_id}/repos', { params: { path: { org_id: orgId }, query: { per_page: 100 } }, signal }))).data,
    enabled,
  });
}

/** Gives a team a role on a repository, or changes it (the same PUT). */
export function useGrantTeamRepo(orgId: string, teamId: string) {
  const invalidate = useInvalidateOrg(orgId);
  return useMutation({
    mutationFn: async ({ repoId, role }: { repoId: string; role: RepoRole }) =>
      (await call(api.PUT('/api/v1/teams/{id}/repos/{repo_id}', { params: { path: { id: teamId, repo_id: repoId } }, body: { role } }))).data,
    onSuccess: invalidate,
  });
}

export function useRevokeTeamRepo(orgId: string, teamId: string) {
  const invalidate = useInvalidateOrg(orgId);
  return useMutation({
    mutationFn: async (repoId: string) =>
      (await call(api.DELETE('/api/v1/teams/{id}/repos/{repo_id}', { params: { path: { id: teamId, repo_id: repoId } } }))).data,
    onSuccess: invalidate,
  });
}

/** What every member may do to every repository: "read" (read, upload, triage) or "none" (what their teams hold). */
export function useSetBaseRole(orgId: string) {
  const invalidate = useInvalidateOrg(orgId);
  return useMutation({
    mutationFn: async (baseRole: 'read' | 'none') =>
      (await call(api.PUT('/api/v1/orgs/{id}', { params: { path: { id: orgId } }, body: { base_role: baseRole } }))).data,
    onSuccess: invalidate,
  });
}
