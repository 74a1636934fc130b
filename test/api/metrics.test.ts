import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';

const DAY = 86_400_000;
/** Day 0 of the story, 10:00 UTC. */
const DAY0 = Date.parse('2026-01-05T10:00:00.000Z');
const dayText = (n: number) => new Date(DAY0 + n * DAY).toISOString().slice(0, 10);

// SARIF 2.1.0 (OASIS) results with GitHub's security-severity property, as test/support/sarif.ts writes them.
const CRITICAL = 9.5;
const HIGH = 7.5;
const MEDIUM = 5;

/** Linear interpolation between closest ranks, written out here so the test does not borrow the service's. */
function expectedPercentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const rank = ((s.length - 1) * p) / 100;
  const lo = Math.floor(rank);
  return s[lo]! + (s[Math.ceil(rank)]! - s[lo]!) * (rank - lo);
}

describe.each(DB_KINDS)('SLAs and metrics on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let member: { cookie: string };
  let orgId: string;
  let key: string;
  let repoA: string;
  let repoB: string;
  let teamId: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    owner = await t.user('owner');
    const m = await t.user('member');
    member = m;
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/members/${m.user.id}`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
    key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    repoA = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'a' } })).json().id;
    repoB = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'b' } })).json().id;
    teamId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/teams`, headers: { cookie: owner.cookie }, payload: { name: 'payments' } })).json().id;
    await t.db.kysely.insertInto('team_repositories').values({ team_id: teamId, repository_id: repoA, role: 'read' }).execute();
  });
  afterAll(() => t.close());

  const get = (url: string, cookie = member.cookie, headers: Record<string, string> = {}) => t.request({ url, headers: { cookie, ...headers } });
  const upload = async (repoId: string, results: SarifResultSpec[]) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: sarifLog(results) });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
  };
  /** CISA's known_exploited_vulnerabilities.json (catalogue schema 1.x: catalogVersion, vulnerabilities[] with cveID, dateAdded, ...), one entry. */
  const importKev = async () => {
    const admin = await t.user('admin', { admin: true });
    const res = await t.request({
      method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/octet-stream' },
      payload: JSON.stringify({
        title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: '2025.03.14', dateReleased: '2025-03-14T17:59:45.3694Z', count: 1,
        vulnerabilities: [{
          cveID: 'CVE-2021-44228', vendorProject: 'Apache', product: 'Log4j2', vulnerabilityName: 'Apache Log4j2 Remote Code Execution Vulnerability',
          dateAdded: '2021-12-10', shortDescription: 'Apache Log4j2 contains a vulnerability where JNDI features do not protect against attacker-controlled JNDI-related endpoints.',
          requiredAction: 'For all affected software assets for which updates exist, apply updates per vendor instructions.',
          dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known', notes: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44228', cwes: ['CWE-20', 'CWE-400', 'CWE-502'],
        }],
      }),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  };
  const finding = (rule: string, severity: number): SarifResultSpec => ({ rule, file: `src/${rule}.ts`, securitySeverity: severity });

  describe('the SLA', () => {
    it('is off until set, and is the policy\'s max_age_days seen from the other side', async () => {
      expect((await get(`/api/v1/orgs/${orgId}/sla`)).json()).toEqual({ critical: null, high: null, medium: null, low: null, kev_days: null });
      const put = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/sla`, headers: { cookie: owner.cookie }, payload: { critical: 7, high: 30, kev_days: 14 } });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json()).toEqual({ critical: 7, high: 30, medium: null, low: null, kev_days: 14 });
      expect((await get(`/api/v1/orgs/${orgId}/policy`)).json()).toEqual({ max_age_days: { critical: 7, high: 30 }, max_age_kev_days: 14 });
      // Writing the policy changes the SLA.
      await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/policy`, headers: { cookie: owner.cookie }, payload: { fail_on_kev: true, max_age_days: { critical: 7, high: 30, medium: 5 } } });
      expect((await get(`/api/v1/orgs/${orgId}/sla`)).json()).toEqual({ critical: 7, high: 30, medium: 5, low: null, kev_days: null });
      // And writing the SLA keeps the policy's other rules.
      expect((await get(`/api/v1/orgs/${orgId}/policy`)).json()).toMatchObject({ fail_on_kev: true });
    });

    it('is changed by owners only, and refuses what is not a number of days', async () => {
      expect((await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/sla`, headers: { cookie: member.cookie }, payload: { critical: 1 } })).statusCode).toBe(403);
      for (const payload of [{ critical: 0 }, { high: 'soon' }, { urgent: 3 }]) {
        const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/sla`, headers: { cookie: owner.cookie }, payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
    });
  });

  describe('over time', () => {
    /** Each finding's first seen and fixed times as the uploads happened. */
    const story = new Map<string, { severity: string; seen: number; fixed?: number }>();
    let liveDaily: unknown;

    it('follows a story of uploads, snapshotting every day as the maintenance loop does', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        const plan: Record<number, SarifResultSpec[]> = {
          0: [finding('X', CRITICAL), finding('Y', HIGH), finding('Z', CRITICAL)],
          2: [finding('X', CRITICAL), finding('Y', HIGH), finding('Z', CRITICAL), finding('W', MEDIUM)],
          5: [finding('Y', HIGH), finding('Z', CRITICAL), finding('W', MEDIUM)],
          10: [finding('Y', HIGH), finding('W', MEDIUM)],
          12: [finding('W', MEDIUM)],
        };
        const severities: Record<string, string> = { X: 'critical', Y: 'high', Z: 'critical', W: 'medium' };
        for (let day = 0; day <= 20; day++) {
          vi.setSystemTime(DAY0 + day * DAY);
          // The loop's round just after midnight writes yesterday.
          await t.app.services.metricsService.snapshot();
          // W is dismissed on day 3 and reopened on day 4: triage events the backfill reads from history too.
          if (day === 3 || day === 4) {
            const w = (await get(`/api/v1/repos/${repoA}/findings?state=all`, owner.cookie)).json<{ id: string; rule_id: string }[]>().find((f) => f.rule_id === 'W')!;
            const triage = await t.request({ method: 'PATCH', url: `/api/v1/findings/${w.id}`, headers: { cookie: owner.cookie }, payload: day === 3 ? { state: 'dismissed', reason: 'accepted_risk' } : { state: 'open' } });
            expect(triage.statusCode, triage.body).toBe(200);
          }
          const results = plan[day];
          if (!results) continue;
          await upload(repoA, results);
          const present = new Set(results.map((r) => r.rule));
          for (const rule of present) if (!story.has(rule)) story.set(rule, { severity: severities[rule]!, seen: Date.now() });
          for (const [rule, f] of story) if (!present.has(rule) && f.fixed === undefined) f.fixed = Date.now();
        }
        // Another repository, outside the team: one high finding since day 20.
        await upload(repoB, [finding('B1', HIGH)]);
        story.set('B1', { severity: 'high', seen: Date.now() });
        vi.setSystemTime(DAY0 + 21 * DAY);
        expect(await t.app.services.metricsService.snapshot()).toBe(2);
        expect(await t.app.services.metricsService.snapshot()).toBe(0);
        const res = await get(`/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(20)}`);
        expect(res.statusCode, res.body).toBe(200);
        liveDaily = res.json();
      } finally {
        vi.useRealTimers();
      }
      const points = (liveDaily as { points: { date: string; open: Record<string, number>; new: number; fixed: number; breached: number }[] }).points;
      expect(points).toHaveLength(21);
      expect(points[0]).toMatchObject({ date: dayText(0), open: { critical: 2, high: 1, medium: 0, low: 0, info: 0 }, new: 3, fixed: 0 });
      expect(points[2]).toMatchObject({ open: { critical: 2, high: 1, medium: 1 }, new: 1 });
      expect(points[3]).toMatchObject({ open: { critical: 2, high: 1, medium: 0 }, dismissed: 1, reopened: 0 });
      expect(points[4]).toMatchObject({ open: { critical: 2, high: 1, medium: 1 }, dismissed: 0, reopened: 1 });
      expect(points[5]).toMatchObject({ open: { critical: 1, high: 1, medium: 1 }, fixed: 1 });
      // End of day 7: Z (critical, seen day 0, 7 days) and W (medium, seen day 2, 5 days) are past due.
      expect(points[6]!.breached).toBe(0);
      expect(points[7]!.breached).toBe(2);
      expect(points[10]).toMatchObject({ open: { critical: 0, high: 1, medium: 1 }, fixed: 1, breached: 1 });
      expect(points[20]).toMatchObject({ open: { critical: 0, high: 1, medium: 1 }, new: 1 });
    });

    it('answers the same series when the snapshots are backfilled from history', async () => {
      const team = await get(`/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(20)}&team=${teamId}`);
      await t.db.kysely.deleteFrom('repo_snapshots').execute();
      await t.db.kysely.deleteFrom('org_snapshots').execute();
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(DAY0 + 21 * DAY);
        expect(await t.app.services.metricsService.snapshot()).toBe(22);
        expect((await get(`/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(20)}`)).json()).toEqual(liveDaily);
        expect((await get(`/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(20)}&team=${teamId}`)).json()).toEqual(team.json());
      } finally {
        vi.useRealTimers();
      }
    });

    it('sums weeks and answers a team\'s and a repository\'s figures', async () => {
      const weeks = (await get(`/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(20)}&interval=week`)).json().points;
      // 2026-01-05 is a Monday: three ISO weeks.
      expect(weeks.map((p: { date: string }) => p.date)).toEqual([dayText(0), dayText(7), dayText(14)]);
      expect(weeks[0]).toMatchObject({ new: 4, fixed: 1, open: { critical: 1, high: 1, medium: 1 } });
      expect(weeks[1]).toMatchObject({ new: 0, fixed: 2, open: { critical: 0, high: 0, medium: 1 } });
      const team = (await get(`/api/v1/orgs/${orgId}/metrics?from=${dayText(20)}&to=${dayText(20)}&team=${teamId}`)).json().points;
      expect(team[0]).toMatchObject({ open: { high: 0, medium: 1 }, new: 0 });
      const repo = (await get(`/api/v1/repos/${repoB}/metrics?from=${dayText(20)}&to=${dayText(20)}`)).json().points;
      expect(repo[0]).toMatchObject({ open: { high: 1, medium: 0 }, new: 1 });
      const csv = await get(`/api/v1/repos/${repoB}/metrics?from=${dayText(20)}&to=${dayText(20)}`, member.cookie, { accept: 'text/csv' });
      expect(csv.headers['content-type']).toContain('text/csv');
      expect(csv.body.trim().split('\n')).toEqual([
        'date,open_critical,open_high,open_medium,open_low,open_info,new,fixed,dismissed,reopened,breached,kev_open,vulnerabilities',
        `${dayText(20)},0,1,0,0,0,1,0,0,0,0,0,0`,
      ]);
    });

    it('summarises MTTR and SLA compliance: fixed on day 10 with a 7-day SLA is late', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(DAY0 + 21 * DAY);
        const res = await get(`/api/v1/orgs/${orgId}/metrics/summary?window=90d`);
        expect(res.statusCode, res.body).toBe(200);
        const summary = res.json();
        const days = (severity: string) => [...story.values()].filter((f) => f.severity === severity && f.fixed !== undefined).map((f) => (f.fixed! - f.seen) / DAY);
        for (const severity of ['critical', 'high']) {
          expect(summary.mttr[severity]).toEqual({ median_days: expectedPercentile(days(severity), 50), p90_days: expectedPercentile(days(severity), 90), fixed: days(severity).length });
        }
        expect(summary.mttr.critical.median_days).toBe(7.5);
        expect(summary.mttr.medium).toEqual({ median_days: null, p90_days: null, fixed: 0 });
        // X fixed after 5 days (in time), Z after 10 (late), Y after 12 of its 30 (in time).
        expect(summary.sla_compliance).toEqual({ fixed_within_sla: 2, fixed: 3, ratio: 0.6667 });
        expect(summary.breached_now).toBe(1);
        expect(summary.oldest_breached).toEqual([expect.objectContaining({ rule_id: 'W', severity: 'medium', repository_id: repoA, due_at: new Date(DAY0 + 7 * DAY).toISOString() })]);
        // A window that ends before Z's fix leaves it out.
        const recent = (await get(`/api/v1/orgs/${orgId}/metrics/summary?window=10d`)).json();
        expect(recent.mttr.critical.fixed).toBe(0);
        expect(recent.mttr.high.fixed).toBe(1);
        const team = (await get(`/api/v1/orgs/${orgId}/metrics/summary?team=${teamId}`)).json();
        expect(team.breached_now).toBe(1);
        expect((await get(`/api/v1/repos/${repoB}/metrics/summary`)).json().sla_compliance).toEqual({ fixed_within_sla: 0, fixed: 0, ratio: null });
      } finally {
        vi.useRealTimers();
      }
    });

    it('answers CSV with Accept: text/csv on all four endpoints, the same figures as the JSON', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(DAY0 + 21 * DAY);
        const csvOf = async (url: string) => {
          const res = await get(url, member.cookie, { accept: 'text/csv' });
          expect(res.statusCode, res.body).toBe(200);
          expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
          expect(res.headers['content-disposition']).toMatch(/^attachment; filename="metrics(-summary)?\.csv"$/);
          return res.body.trim().split('\n');
        };
        type Point = { date: string; open: Record<string, number>; new: number; fixed: number; dismissed: number; reopened: number; breached: number; kev_open: number; vulnerabilities: number };
        // RFC 4180: a header line, then one line per point; each column a figure of the JSON point.
        const seriesLines = (points: Point[]) => [
          'date,open_critical,open_high,open_medium,open_low,open_info,new,fixed,dismissed,reopened,breached,kev_open,vulnerabilities',
          ...points.map((p) => [p.date, p.open.critical, p.open.high, p.open.medium, p.open.low, p.open.info, p.new, p.fixed, p.dismissed, p.reopened, p.breached, p.kev_open, p.vulnerabilities].join(',')),
        ];
        for (const url of [`/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(20)}&interval=week`, `/api/v1/orgs/${orgId}/metrics?from=${dayText(0)}&to=${dayText(6)}&team=${teamId}`, `/api/v1/repos/${repoA}/metrics?from=${dayText(0)}&to=${dayText(6)}`]) {
          const points = (await get(url)).json<{ points: Point[] }>().points;
          expect(points.some((p) => p.new > 0), url).toBe(true);
          expect(await csvOf(url), url).toEqual(seriesLines(points));
        }
        type Summary = { mttr: Record<string, { median_days: number | null; p90_days: number | null; fixed: number }>; sla_compliance: { fixed_within_sla: number; fixed: number; ratio: number | null }; breached_now: number };
        for (const url of [`/api/v1/orgs/${orgId}/metrics/summary?window=90d`, `/api/v1/orgs/${orgId}/metrics/summary?team=${teamId}`, `/api/v1/repos/${repoA}/metrics/summary`]) {
          const summary = (await get(url)).json<Summary>();
          const { fixed_within_sla: within, fixed, ratio } = summary.sla_compliance;
          expect(await csvOf(url), url).toEqual([
            'severity,median_days,p90_days,fixed,fixed_within_sla,fixed_under_sla,sla_ratio,breached_now',
            ...['critical', 'high', 'medium', 'low', 'info'].map((s) => [s, summary.mttr[s]!.median_days ?? '', summary.mttr[s]!.p90_days ?? '', summary.mttr[s]!.fixed, within, fixed, ratio ?? '', summary.breached_now].join(',')),
          ]);
        }
        expect((await csvOf(`/api/v1/orgs/${orgId}/metrics/summary`))[1]).toBe('critical,7.5,9.5,2,2,3,0.6667,1');
        // A problem stays a problem (JSON), whatever the Accept header asks for.
        const refused = await get(`/api/v1/orgs/${orgId}/metrics?from=2026-02-30`, member.cookie, { accept: 'text/csv' });
        expect(refused.statusCode).toBe(400);
        expect(refused.headers['content-type']).toContain('application/problem+json');
      } finally {
        vi.useRealTimers();
      }
    });

    it('refuses what it cannot answer with a problem', async () => {
      for (const query of ['from=2026-02-30', 'from=2026-03-01&to=2026-02-01', 'interval=year', 'from=2000-01-01&to=2026-01-01']) {
        const res = await get(`/api/v1/orgs/${orgId}/metrics?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
      expect((await get(`/api/v1/orgs/${orgId}/metrics/summary?window=0d`)).statusCode).toBe(400);
      expect((await get(`/api/v1/orgs/${orgId}/metrics/summary?window=soon`)).statusCode).toBe(400);
      expect((await get(`/api/v1/orgs/${orgId}/metrics?team=nope`)).statusCode).toBe(404);
    });
  });
  describe('on the findings list', () => {
    it('gives open findings a due date and SLA state, filters and sorts by them, and carries them in the CSV', async () => {
      const repoC = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'c' } })).json().id as string;
      const put = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/sla`, headers: { cookie: owner.cookie }, payload: { critical: 7, high: 30, medium: 5, kev_days: 3 } });
      expect(put.statusCode, put.body).toBe(200);
      const T0 = Date.parse('2026-03-02T00:00:00.000Z');
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(T0);
        await upload(repoC, [finding('P', CRITICAL), finding('Q', HIGH), finding('R', MEDIUM), finding('L', 2), finding('CVE-2021-44228', 2)]);
        // Scanyard imports the KEV catalogue a day later, then again on day 6.5: the clock counts from the first import.
        vi.setSystemTime(T0 + DAY);
        await importKev();
        vi.setSystemTime(T0 + 6.5 * DAY);
        await importKev();
        const list = async (query: string) => (await get(`/api/v1/repos/${repoC}/findings?${query}`)).json() as { rule_id: string; due_at: string | null; sla: string | null; id: string }[];
        const byRule = new Map((await list('')).map((f) => [f.rule_id, f]));
        const iso = (days: number) => new Date(T0 + days * DAY).toISOString();
        expect(byRule.get('P')).toMatchObject({ due_at: iso(7), sla: 'due_soon' });
        expect(byRule.get('Q')).toMatchObject({ due_at: iso(30), sla: 'on_track' });
        expect(byRule.get('R')).toMatchObject({ due_at: iso(5), sla: 'breached' });
        expect(byRule.get('L')).toMatchObject({ due_at: null, sla: null });
        // Low has no SLA; KEV's clock starts at the import, a day after first seen.
        expect(byRule.get('CVE-2021-44228')).toMatchObject({ due_at: iso(4), sla: 'breached' });
        expect((await list('sla=breached')).map((f) => f.rule_id).sort()).toEqual(['CVE-2021-44228', 'R']);
        expect((await list('sla=due_soon')).map((f) => f.rule_id)).toEqual(['P']);
        expect((await list('sla=on_track')).map((f) => f.rule_id)).toEqual(['Q']);
        expect((await list('sort=due_at')).map((f) => f.rule_id)).toEqual(['CVE-2021-44228', 'R', 'P', 'Q', 'L']);
        // The summary agrees, KEV clock included.
        const summary = (await get(`/api/v1/repos/${repoC}/metrics/summary`)).json();
        expect(summary.breached_now).toBe(2);
        expect(summary.oldest_breached.map((f: { rule_id: string; due_at: string }) => [f.rule_id, f.due_at])).toEqual([['CVE-2021-44228', iso(4)], ['R', iso(5)]]);
        const csv = (await get(`/api/v1/repos/${repoC}/findings?sla=breached&sort=due_at`, member.cookie, { accept: 'text/csv' })).body.trim().split('\n');
        // direct and path close each line: empty, since no SBOM of the ref lists the package.
        expect(csv[0]!.endsWith(',due_at,sla,direct,path')).toBe(true);
        expect(csv[1]!.endsWith(`,${iso(4)},breached,,`)).toBe(true);

        // Dismissed: out of the SLA. Reopened: back on its clock from first seen.
        const q = byRule.get('Q')!;
        await t.request({ method: 'PATCH', url: `/api/v1/findings/${q.id}`, headers: { cookie: member.cookie }, payload: { state: 'dismissed', reason: 'accepted_risk' } });
        const dismissed = (await list('state=dismissed')).find((f) => f.rule_id === 'Q');
        expect(dismissed).toMatchObject({ due_at: null, sla: null });
        expect((await list('sla=on_track'))).toEqual([]);
        vi.setSystemTime(T0 + 29 * DAY);
        await t.request({ method: 'PATCH', url: `/api/v1/findings/${q.id}`, headers: { cookie: member.cookie }, payload: { state: 'open' } });
        expect((await list('sla=due_soon')).map((f) => f.rule_id)).toEqual(['Q']);
        expect((await list('')).find((f) => f.rule_id === 'Q')).toMatchObject({ due_at: iso(30), sla: 'due_soon' });
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('past due across many repositories', () => {
    it('names the ten longest past due and sums breached per repository and team, whether the database counts or each finding is judged', async () => {
      const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'portfolio' } })).json().id as string;
      const as = { cookie: owner.cookie };
      const names = Array.from({ length: 12 }, (_, i) => `r${String(i).padStart(2, '0')}`);
      const ids: Record<string, string> = {};
      for (const name of names) ids[name] = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: as, payload: { name } })).json().id;
      const team = async (name: string, members: string[]) => {
        const id = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/teams`, headers: as, payload: { name } })).json().id as string;
        for (const repo of members) expect((await t.request({ method: 'PUT', url: `/api/v1/teams/${id}/repos/${ids[repo]}`, headers: as, payload: { role: 'read' } })).statusCode).toBe(200);
        return id;
      };
      await team('odd', names.filter((_, i) => i % 2 === 1));
      await team('everything', names);
      const T0 = Date.parse('2026-06-01T08:00:00.000Z');
      // r11 first (six criticals), then one repository an hour with two each: the ten first seen earliest are r11's six, r10's and r09's.
      const seen = new Map<string, number>();
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        for (let i = 11; i >= 0; i--) {
          vi.setSystemTime(T0 + (11 - i) * 3_600_000);
          const rules = Array.from({ length: i === 11 ? 6 : 2 }, (_, k) => `${names[i]}-${k}`);
          await upload(ids[names[i]!]!, rules.map((rule) => finding(rule, CRITICAL)));
          for (const rule of rules) seen.set(rule, Date.now());
        }
        vi.setSystemTime(T0 + 5 * DAY);
        const expectedOldest = [...seen].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).slice(0, 10);
        for (const sla of [{ critical: 1 }, { critical: 1, kev_days: 30 }]) {
          expect((await t.request({ method: 'PUT', url: `/api/v1/orgs/${org}/sla`, headers: as, payload: sla })).statusCode).toBe(200);
          const summary = (await get(`/api/v1/orgs/${org}/metrics/summary`, owner.cookie)).json();
          expect(summary.breached_now, JSON.stringify(sla)).toBe(28);
          expect(summary.oldest_breached.map((f: { rule_id: string; due_at: string }) => [f.rule_id, f.due_at]).sort())
            .toEqual(expectedOldest.map(([rule, at]) => [rule, new Date(at + DAY).toISOString()]).sort());
          expect(summary.oldest_breached.map((f: { due_at: string }) => f.due_at)).toEqual(expectedOldest.map(([, at]) => new Date(at + DAY).toISOString()));
          expect(summary.breached_by_repository).toEqual([
            { repository_id: ids.r11, name: 'r11', breached: 6 },
            ...names.slice(0, 11).map((name) => ({ repository_id: ids[name], name, breached: 2 })),
          ]);
          expect(summary.breached_by_team.map((b: { name: string; breached: number }) => [b.name, b.breached])).toEqual([['everything', 28], ['odd', 16]]);
        }
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('who reads what', () => {
    it("counts only the repositories a member may read when the organization's base role is none", async () => {
      const breached = async (url: string, cookie: string) => (await get(url, cookie)).json<{ breached_now: number }>().breached_now;
      const org = `/api/v1/orgs/${orgId}/metrics/summary`;
      const whole = await breached(org, owner.cookie);
      expect(whole, 'the findings of the tests above are past their SLA by now').toBeGreaterThan(0);
      expect(await breached(org, member.cookie)).toBe(whole);
      const setBase = (role: string) => t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { cookie: owner.cookie }, payload: { base_role: role } });
      expect((await setBase('none')).statusCode).toBe(200);
      try {
        const series = async (url: string, cookie: string) => (await get(`${url}?from=${dayText(0)}&to=${dayText(20)}`, cookie)).json<{ points: { open: Record<string, number>; new: number }[] }>().points;
        // No team: nothing of the org is theirs to count.
        expect(await breached(org, member.cookie)).toBe(0);
        expect((await series(`/api/v1/orgs/${orgId}/metrics`, member.cookie)).every((p) => p.new === 0 && Object.values(p.open).every((n) => n === 0))).toBe(true);
        expect(await breached(org, owner.cookie)).toBe(whole);
        // In the team that holds repository a: exactly a's figures.
        await t.db.kysely.insertInto('team_members').values({ team_id: teamId, user_id: (await t.db.kysely.selectFrom('users').select('id').where('login', '=', 'member').executeTakeFirstOrThrow()).id }).execute();
        expect(await breached(org, member.cookie)).toBe(await breached(`/api/v1/repos/${repoA}/metrics/summary`, owner.cookie));
        const theirs = await series(`/api/v1/orgs/${orgId}/metrics`, member.cookie);
        expect(theirs.some((p) => p.new > 0)).toBe(true);
        expect(theirs).toEqual(await series(`/api/v1/repos/${repoA}/metrics`, owner.cookie));
        expect((await get(`/api/v1/repos/${repoB}/metrics/summary`, member.cookie)).statusCode).toBe(404);
      } finally {
        await setBase('read');
      }
    });
  });
});
