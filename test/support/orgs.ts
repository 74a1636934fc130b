import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';

export interface Org { id: string; name: string; description: string; repo_count: number; created_at: string; updated_at: string }
export interface Repo { id: string; org_id: string; name: string; url: string | null; default_branch: string | null }
export interface Team { id: string; org_id: string; name: string; description: string; members: string[] }
export interface Problem { status: number; detail: string; errors?: { path: string; message: string }[] }

/** Request helpers for the org endpoints; each expects success, so a test reads as its story. */
export function orgClient(t: TestApp) {
  const call = (cookie: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url, headers: { cookie }, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
  const ok = <T>(res: LightMyRequestResponse, status: number): T => {
    expect(res.statusCode, res.body).toBe(status);
    return (res.body ? res.json() : undefined) as T;
  };
  return {
    call,
    createOrg: async (cookie: string, name: string, description?: string) =>
      ok<Org>(await call(cookie, 'POST', '/api/v1/orgs', { name, ...(description !== undefined ? { description } : {}) }), 201),
    createRepo: async (cookie: string, orgId: string, body: Record<string, unknown>) =>
      ok<Repo>(await call(cookie, 'POST', `/api/v1/orgs/${orgId}/repos`, body), 201),
    createTeam: async (cookie: string, orgId: string, body: Record<string, unknown>) =>
      ok<Team>(await call(cookie, 'POST', `/api/v1/orgs/${orgId}/teams`, body), 201),
    /** Adds (or re-roles) a member as `cookie`, who must be allowed to. */
    setMember: async (cookie: string, orgId: string, userId: string, role: 'owner' | 'member') => {
      const res = await call(cookie, 'PUT', `/api/v1/orgs/${orgId}/members/${userId}`, { role });
      expect([200, 201], res.body).toContain(res.statusCode);
      return res.json<{ user_id: string; role: string }>();
    },
  };
}

/** A JSON body of about `bytes` bytes, to cross the body limit. */
export function bodyOfSize(bytes: number): string {
  return JSON.stringify({ name: 'big', description: 'x'.repeat(bytes) });
}
