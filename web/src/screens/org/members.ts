import { api, call } from '../../api/client';
import type { Member } from '../../api/types';

/** The members of an organization (up to 100 per page; the org screen reads every page). */
export async function loadMembers(orgId: string, signal: AbortSignal): Promise<Member[]> {
  const all: Member[] = [];
  for (let page = 1; page <= 50; page++) {
    const { data, response } = await call(api.GET('/api/v1/orgs/{id}/members', {
      params: { path: { id: orgId }, query: { page, per_page: 100 } },
      signal,
    }));
    all.push(...data);
    const total = Number(response.headers.get('x-total-count') ?? all.length);
    if (data.length === 0 || all.length >= total) break;
  }
  return all;
}

export const displayName = (m: { login: string; name: string | null }): string => m.name || m.login;
