import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';

interface Dismissal { reason: string; comment: string | null; by: string | null; at: string; until: string | null }
interface Finding { id: string; rule_id: string; state: string; dismissal: Dismissal | null }

describe.each(DB_KINDS)('a dismissal in the findings list and its CSV on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let repoId: string;
  const until = '2099-01-31T00:00:00.000Z';
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie: owner } = await t.user('auditor'));
    const api = orgClient(t);
    const org = await api.createOrg(owner, 'audit-trail');
    repoId = (await api.createRepo(owner, org.id, { name: 'app' })).id;
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie: owner, 'content-type': 'application/sarif+json' },
      payload: sarifLog([{ rule: 'sql-injection', file: 'src/db.js', line: 10, level: 'error' }, { rule: 'xss', file: 'src/view.js', line: 4 }]),
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    const sqli = (await list('open')).find((f) => f.rule_id === 'sql-injection')!;
    const dismissed = await t.request({
      method: 'PATCH', url: `/api/v1/findings/${sqli.id}`, headers: { cookie: owner },
      payload: { state: 'dismissed', reason: 'accepted_risk', comment: 'Internal admin tool only', until },
    });
    expect(dismissed.statusCode, dismissed.body).toBe(200);
  });
  afterAll(() => t.close());

  async function list(state: string): Promise<Finding[]> {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?state=${state}&per_page=100`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Finding[]>();
  }

  it('lists each dismissed finding with why, by whom and until when, as the finding itself has it', async () => {
    const [sqli, ...others] = await list('dismissed');
    expect(others).toEqual([]);
    expect(sqli!.dismissal).toEqual({ reason: 'accepted_risk', comment: 'Internal admin tool only', by: 'auditor', at: expect.any(String) as string, until });
    const detail = (await t.request({ url: `/api/v1/findings/${sqli!.id}`, headers: { cookie: owner } })).json<Finding>();
    expect(sqli!.dismissal).toEqual(detail.dismissal);
    expect((await list('open')).map((f) => [f.rule_id, f.dismissal])).toEqual([['xss', null]]);
  });

  it('exports the dismissal in columns of its own', async () => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?state=all`, headers: { cookie: owner, accept: 'text/csv' } });
    expect(res.statusCode).toBe(200);
    const [header, ...rows] = res.body.trim().split('\n').map((line) => line.split(','));
    const byRule = Object.fromEntries(rows.map((row) => {
      const cells = Object.fromEntries(header!.map((column, i) => [column, row[i]]));
      return [cells.rule_id, cells];
    }));
    const at = (await list('dismissed'))[0]!.dismissal!.at;
    expect(byRule['sql-injection']).toMatchObject({
      state: 'dismissed', dismissal_reason: 'accepted_risk', dismissal_comment: 'Internal admin tool only', dismissal_by: 'auditor', dismissal_at: at, dismissal_until: until,
    });
    expect(byRule.xss).toMatchObject({ state: 'open', dismissal_reason: '', dismissal_comment: '', dismissal_by: '', dismissal_at: '', dismissal_until: '' });
  });
});
