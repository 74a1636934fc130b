import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';

describe.each(DB_KINDS)('a database failure behind an upload on %s', (kind) => {
  it('answers 500, not 404: only a missing or invisible upload is "not found"', async () => {
    const t = await createTestApp(kind);
    try {
      const { cookie } = await t.user('owner');
      const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, string>) =>
        t.request({ method, url, headers: { cookie }, ...(payload && { payload }) });
      const org = (await call('POST', '/api/v1/orgs', { name: 'acme' })).json();
      const repo = (await call('POST', `/api/v1/orgs/${org.id}/repos`, { name: 'api' })).json();
      const accepted = await t.request({
        method: 'POST', url: `/api/v1/repos/${repo.id}/upload`,
        headers: { cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([]),
      });
      expect(accepted.statusCode).toBe(202);
      const uploadUrl = `/api/v1/uploads/${accepted.json().id}`;
      expect((await call('GET', uploadUrl)).statusCode).toBe(200);

      // The upload row is still there; reading its repository now fails as an outage would.
      await sql`alter table repos rename to repos_unreachable`.execute(t.db.kysely);
      const failed = await call('GET', uploadUrl);
      expect(failed.statusCode).toBe(500);
      expect(failed.headers['content-type']).toContain('application/problem+json');
      expect(failed.json().detail).not.toContain('not found');
    } finally {
      await t.close();
    }
  });
});
