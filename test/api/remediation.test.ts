import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { QS_2017, QS_2022 } from '../support/qs-advisories.js';

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, '../fixtures', name));
/**
 * An npm project "shop" depending on express 4.17.1, as cyclonedx-npm 1.18 writes it (CycloneDX 1.5
 * JSON: metadata.component is the project, bom-refs name@version, dependencies[] from npm ls).
 */
const EXPRESS = fixture('graphs/express-4.17.1-cyclonedx-npm-1.5.cdx.json');

/**
 * What `npm ls qs` and `npm ls` print for the same lockfile: the independent truth for paths and
 * direct dependencies ("deduped" marks a package listed again where npm placed it once).
 */
const NPM_LS_QS = `shop@1.0.0 /srv/shop
└─┬ express@4.17.1
  ├─┬ body-parser@1.19.0
  │ └── qs@6.7.0 deduped
  └── qs@6.7.0
`;
const NPM_LS_TOP = `shop@1.0.0 /srv/shop
└── express@4.17.1
`;

/** The chains of an npm ls tree ending at `leaf`, top-level package first, the project left out. */
function npmLsPaths(tree: string, leaf: string): string[][] {
  const stack: string[] = [];
  const found: string[][] = [];
  for (const line of tree.split('\n').slice(1)) {
    const match = /^([│ ]*)[├└]─[─┬] (\S+)/u.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 2;
    stack.length = depth;
    stack.push(match[2]!);
    if (match[2] === leaf) found.push([...stack]);
  }
  return found.sort((a, b) => a.length - b.length);
}

interface Component { id: string; name: string; version: string | null; direct: boolean | null }
interface Action { package: string; from: string; to: string | null; vulnerabilities: string[]; remaining: string[]; severity: string; kev: number; via: { name: string; version: string | null }[] }

describe.each(DB_KINDS)('dependency paths and upgrade plans, on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let stranger: string;
  let orgId: string;
  let repo: string;
  let other: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const admin = await t.user('admin', { admin: true });
    ({ cookie: owner } = await t.user('owner'));
    ({ cookie: stranger } = await t.user('stranger'));
    for (const record of [QS_2022, QS_2017]) {
      const imported = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/json' }, payload: JSON.stringify(record) });
      expect(imported.statusCode, imported.body).toBe(200);
    }
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner }, payload: { name: 'acme' } })).json().id;
    repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name: 'shop' } })).json().id;
    other = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name: 'legacy' } })).json().id;
    await upload(repo, EXPRESS);
    // The same project on a qs both advisories affect (6.2.0): the first fix of one (6.2.3) is affected by the other.
    await upload(other, Buffer.from(EXPRESS.toString().replaceAll('qs@6.7.0', 'qs@6.2.0').replace('"version": "6.7.0"', '"version": "6.2.0"')));
  });
  afterAll(() => t.close());

  async function upload(repoId: string, body: Buffer, query = '') {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload${query}`, headers: { cookie: owner, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    const done = (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie: owner } })).json();
    expect(done.status, JSON.stringify(done)).toBe('complete');
  }
  const components = async (repoId: string) => (await t.request({ url: `/api/v1/repos/${repoId}/components?per_page=100`, headers: { cookie: owner } })).json<Component[]>();
  const paths = async (repoId: string, componentId: string, cookie = owner) => t.request({ url: `/api/v1/repos/${repoId}/components/${componentId}/paths`, headers: { cookie } });
  const plan = async (repoId: string, accept = 'application/json') => t.request({ url: `/api/v1/repos/${repoId}/remediation`, headers: { cookie: owner, accept } });

  it('marks as direct exactly what npm ls lists at the top, and the rest as pulled in', async () => {
    const listed = await components(repo);
    const top = npmLsPaths(NPM_LS_TOP, 'express@4.17.1').map((p) => p[0]);
    expect(listed.filter((c) => c.direct).map((c) => `${c.name}@${c.version}`)).toEqual(top);
    expect(listed.filter((c) => c.direct === false)).toHaveLength(listed.length - 1);
    // The project itself (metadata.component) is not a component.
    expect(listed.map((c) => c.name)).not.toContain('shop');
  });

  it('answers the paths to qs that npm ls qs prints, shortest first', async () => {
    const qs = (await components(repo)).find((c) => c.name === 'qs')!;
    const res = await paths(repo, qs.id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ total: number; paths: { name: string; version: string }[][] }>();
    const expected = npmLsPaths(NPM_LS_QS, 'qs@6.7.0');
    expect(body.total).toBe(expected.length);
    expect(body.paths.map((p) => p.map((c) => `${c.name}@${c.version}`))).toEqual(expected);
  });

  it('plans "upgrade qs to 6.7.3, pulled by express", the smallest version no advisory affects', async () => {
    const res = await plan(repo);
    expect(res.statusCode, res.body).toBe(200);
    const actions = res.json<Action[]>();
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      package: 'qs', from: '6.7.0', to: '6.7.3', vulnerabilities: ['CVE-2022-24999'], remaining: [], severity: 'high', kev: 0,
      via: [{ name: 'express', version: '4.17.1' }],
    });
    // The finding from the advisory carries where it comes from.
    const findings = (await t.request({ url: `/api/v1/repos/${repo}/findings`, headers: { cookie: owner } })).json<{ id: string; package: { name: string } | null }[]>();
    expect(findings.map((f) => f.package?.name)).toEqual(['qs']);
    const detail = (await t.request({ url: `/api/v1/findings/${findings[0]!.id}`, headers: { cookie: owner } })).json<{ direct: boolean | null; path: { name: string; version: string }[] }>();
    expect(detail.direct).toBe(false);
    expect(detail.path.map((c) => `${c.name}@${c.version}`)).toEqual(npmLsPaths(NPM_LS_QS, 'qs@6.7.0')[0]);
  });

  it('skips a fixed version that the other advisory still affects', async () => {
    const [action] = (await plan(other)).json<Action[]>();
    // 6.2.3 fixes CVE-2017-1000048 but is affected by CVE-2022-24999 (fixed in 6.2.4 on that line).
    expect(action).toMatchObject({ package: 'qs', from: '6.2.0', to: '6.2.4', vulnerabilities: ['CVE-2017-1000048', 'CVE-2022-24999'], remaining: [] });
  });

  it('exports the plan as CSV', async () => {
    const res = await plan(repo, 'text/csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.body.split('\n')[0]).toBe('package,purl,from,to,vulnerabilities,remaining,severity,kev,epss,via');
    expect(res.body).toContain('qs,pkg:npm/qs,6.7.0,6.7.3,CVE-2022-24999,,high,0,,express@4.17.1');
  });

  it('groups one upgrade across the repositories of an organization', async () => {
    const res = await t.request({ url: `/api/v1/orgs/${orgId}/remediation`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    const actions = res.json<{ package: string; from: string[]; to: string; vulnerabilities: string[]; repositories: string[] }[]>();
    expect(actions.map((a) => [a.package, a.from, a.to, a.vulnerabilities, a.repositories.sort()])).toEqual(expect.arrayContaining([
      ['qs', ['6.7.0'], '6.7.3', ['CVE-2022-24999'], [repo]],
      ['qs', ['6.2.0'], '6.2.4', ['CVE-2017-1000048', 'CVE-2022-24999'], [other]],
    ]));
    // Planned together (one read for every repository), each repository's actions are its own plan's.
    for (const repoId of [repo, other]) {
      const own = (await plan(repoId)).json<Action[]>();
      expect(own.length).toBeGreaterThan(0);
      const listed = actions.filter((a) => a.repositories.includes(repoId)).map((a) => `${a.package} ${a.to}`).sort();
      expect(listed).toEqual(own.map((a) => `${a.package} ${a.to}`).sort());
    }
    expect((await t.request({ url: `/api/v1/orgs/${orgId}/remediation`, headers: { cookie: stranger } })).statusCode).toBe(404);
  });

  it("gives a member of an org whose base role is none only their team's repositories in the org plan", async () => {
    const member = await t.user('teamed');
    const unteamed = await t.user('unteamed');
    for (const who of [member, unteamed]) {
      const added = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/members/${who.user.id}`, headers: { cookie: owner }, payload: { role: 'member' } });
      expect([200, 201], added.body).toContain(added.statusCode);
    }
    const team = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/teams`, headers: { cookie: owner }, payload: { name: 'legacy-keepers', members: [member.user.id] } });
    expect(team.statusCode, team.body).toBe(201);
    const held = await t.request({ method: 'PUT', url: `/api/v1/teams/${team.json().id}/repos/${other}`, headers: { cookie: owner }, payload: { role: 'read' } });
    expect(held.statusCode, held.body).toBe(200);
    const setBase = (role: string) => t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { cookie: owner }, payload: { base_role: role } });
    expect((await setBase('none')).statusCode).toBe(200);
    try {
      const orgPlan = async (cookie: string) => {
        const res = await t.request({ url: `/api/v1/orgs/${orgId}/remediation`, headers: { cookie } });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ package: string; to: string; repositories: string[] }[]>().map((a) => [a.package, a.to, a.repositories]);
      };
      expect(await orgPlan(member.cookie)).toEqual([['qs', '6.2.4', [other]]]);
      expect(await orgPlan(unteamed.cookie)).toEqual([]);
      // The owner still reads every repository of the org.
      expect((await orgPlan(owner)).flatMap(([, , repositories]) => repositories).sort()).toEqual([other, repo].sort());
    } finally {
      await setBase('read');
    }
  });

  it('diffs the default branch with a pull request that downgrades qs: one package changed, one vulnerability introduced', async () => {
    await upload(repo, Buffer.from(EXPRESS.toString().replaceAll('qs@6.7.0', 'qs@6.2.0').replace('"version": "6.7.0"', '"version": "6.2.0"')), '?ref=pr/7');
    const res = await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=main&head=pr/7`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      counts: { added: 0, removed: 0, changed: 1, licenses_changed: 0, vulnerabilities_introduced: 1, vulnerabilities_fixed: 0 },
      changed: [{ package: 'qs', purl: 'pkg:npm/qs', from: ['6.7.0'], to: ['6.2.0'] }],
      vulnerabilities_introduced: [{ id: 'CVE-2017-1000048', package: 'pkg:npm/qs', severity: 'high' }],
    });
    const markdown = await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=main&head=pr/7&format=markdown`, headers: { cookie: owner } });
    expect(markdown.body).toContain('- CVE\\-2017\\-1000048 in pkg\\:npm\\/qs (high)');
    expect((await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=main&head=pr/7`, headers: { cookie: stranger } })).statusCode).toBe(404);
  });

  it('lists each package finding with direct and its first path, in JSON and CSV, as npm ls shows them', async () => {
    // GitHub's OSV record of the Express open redirect (OSV schema 1.6, https://osv.dev/vulnerability/GHSA-rv95-896h-c2vc):
    // express itself, the project's direct dependency, is affected below 4.19.2.
    const admin = await t.user('admin2', { admin: true });
    const imported = await t.request({
      method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({
        schema_version: '1.6.0', id: 'GHSA-rv95-896h-c2vc', modified: '2024-11-18T16:26:36Z', published: '2024-03-25T19:40:26Z',
        aliases: ['CVE-2024-29041'], summary: 'Express.js Open Redirect in malformed URLs',
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' }],
        affected: [{ package: { ecosystem: 'npm', name: 'express', purl: 'pkg:npm/express' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '4.19.2' }] }] }],
        database_specific: { severity: 'MODERATE', cwe_ids: ['CWE-601', 'CWE-1286'], github_reviewed: true },
      }),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    await t.drain();
    const res = await t.request({ url: `/api/v1/repos/${repo}/findings`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    const listed = res.json<{ package: { name: string }; direct: boolean | null; path: { name: string; version: string }[] | null }[]>();
    const byName = Object.fromEntries(listed.map((f) => [f.package.name, { direct: f.direct, path: f.path?.map((c) => `${c.name}@${c.version}`) }]));
    expect(byName).toEqual({
      express: { direct: true, path: npmLsPaths(NPM_LS_TOP, 'express@4.17.1')[0] },
      qs: { direct: false, path: npmLsPaths(NPM_LS_QS, 'qs@6.7.0')[0] },
    });
    // The list and the finding's own page agree.
    for (const finding of res.json<{ id: string; direct: boolean; path: unknown }[]>()) {
      const detail = (await t.request({ url: `/api/v1/findings/${finding.id}`, headers: { cookie: owner } })).json<{ direct: boolean; path: unknown }>();
      expect({ direct: detail.direct, path: detail.path }).toEqual({ direct: finding.direct, path: finding.path });
    }

    const csv = await t.request({ url: `/api/v1/repos/${repo}/findings`, headers: { cookie: owner, accept: 'text/csv' } });
    const [header, ...rows] = csv.body.trim().split('\n');
    expect(header!.split(',').slice(-2)).toEqual(['direct', 'path']);
    expect(rows.map((row) => row.split(',').slice(-2).join(',')).sort()).toEqual(['false,express@4.17.1 > qs@6.7.0', 'true,express@4.17.1']);
  });

  it('hides paths and plans from whoever may not read the repository, and 404s an unknown component', async () => {
    const qs = (await components(repo)).find((c) => c.name === 'qs')!;
    expect((await paths(repo, qs.id, stranger)).statusCode).toBe(404);
    expect((await paths(repo, 'nope')).statusCode).toBe(404);
    expect((await t.request({ url: `/api/v1/repos/${repo}/remediation`, headers: { cookie: stranger } })).statusCode).toBe(404);
    expect((await paths(other, qs.id)).statusCode).toBe(404);
  });
});
