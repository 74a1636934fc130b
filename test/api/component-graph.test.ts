import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { commonMark } from '../support/markdown.js';

const corpus = (name: string) => fs.readFileSync(path.join(import.meta.dirname, '../fixtures/corpus', name));

/**
 * A hand-made CycloneDX 1.6 JSON BOM (https://cyclonedx.org/docs/1.6/json/#dependencies) whose graph
 * is a cycle: app -> a -> b -> c -> a, c -> d; b also names a ref no component has, and a lists b twice.
 */
const CYCLIC = JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
  metadata: { component: { type: 'application', name: 'app', 'bom-ref': 'app' } },
  components: ['a', 'b', 'c', 'd'].map((name) => ({ type: 'library', name, version: '1.0.0', 'bom-ref': name, purl: `pkg:npm/${name}@1.0.0` })),
  dependencies: [
    { ref: 'app', dependsOn: ['a'] }, { ref: 'a', dependsOn: ['b', 'b'] }, { ref: 'b', dependsOn: ['c', 'missing'] },
    { ref: 'c', dependsOn: ['a', 'd'] }, { ref: 'd' },
  ],
});

interface Component { id: string; name: string; direct: boolean | null; tool: string }
interface Paths { total: number; paths: { name: string }[][] }

describe.each(DB_KINDS)('dependency graphs of real SBOMs, on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie: owner } = await t.user('owner'));
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner }, payload: { name: 'acme' } })).json().id;
  });
  afterAll(() => t.close());

  /** A repository of its own holding this one SBOM: its components and a reader of their paths. */
  async function sbom(name: string, body: Buffer | string) {
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name } })).json().id as string;
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie: owner, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    const components = (await t.request({ url: `/api/v1/repos/${repo}/components?per_page=100`, headers: { cookie: owner } })).json<Component[]>();
    const paths = async (component: string) => {
      const found = await t.request({ url: `/api/v1/repos/${repo}/components/${components.find((c) => c.name === component)!.id}/paths`, headers: { cookie: owner } });
      expect(found.statusCode, found.body).toBe(200);
      const body = found.json<Paths>();
      return { total: body.total, paths: body.paths.map((p) => p.map((c) => c.name)) };
    };
    return { components, paths, byName: (n: string) => components.find((c) => c.name === n)! };
  }

  it('cyclonedx-npm (bundled dependencies, XML): the top-level package is direct, what it bundles comes through it', async () => {
    const { components, paths, byName } = await sbom('npm', corpus('cyclonedx/cyclonedx-npm-bundled-deps-1.6.cdx.xml'));
    expect(components.filter((c) => c.direct).map((c) => c.name)).toEqual(['bundle-dependencies']);
    expect(byName('yargs').direct).toBe(false);
    expect(await paths('yargs')).toEqual({ total: 1, paths: [['bundle-dependencies', 'yargs']] });
    const cliui = await paths('cliui');
    expect(cliui.paths[0]![0]).toBe('bundle-dependencies');
    expect(cliui.paths[0]!.at(-1)).toBe('cliui');
  });

  it('Trivy (CycloneDX, image): the operating system is seen through, its packages are direct', async () => {
    const { paths, byName } = await sbom('image', corpus('cyclonedx/trivy-image-fluentd-vulns-1.6.cdx.json'));
    expect(byName('debian').direct).toBeNull();
    expect(['bash', 'libidn2-0', 'activesupport'].map((n) => byName(n).direct)).toEqual([true, true, true]);
    expect(await paths('bash')).toEqual({ total: 1, paths: [['bash']] });
  });

  it('Trivy (SPDX 2.2 JSON: DESCRIBES and CONTAINS): the application holding the packages is seen through', async () => {
    const { components, byName } = await sbom('spdx', corpus('spdx/trivy-conda-2.2.spdx.json'));
    expect([byName('openssl').direct, byName('pip').direct, byName('conda-pkg').direct]).toEqual([true, true, null]);
    // The filesystem the document DESCRIBES is the SBOM's subject, not one of its components.
    expect(components.map((c) => c.name).sort()).toEqual(['conda-pkg', 'openssl', 'pip']);
  });

  it('Trivy (SPDX 2.3 JSON, relationships only, no documentDescribes)', async () => {
    const { components, byName } = await sbom('spdx23', corpus('spdx/trivy-conda-environment-2.3.spdx.json'));
    expect(byName('bzip2').direct).toBe(true);
    expect(components.map((c) => c.name).sort()).toEqual(['bzip2', 'environment.yaml']);
  });

  it('a cyclic graph with a missing ref and a repeated edge', async () => {
    const { components, paths } = await sbom('cyclic', CYCLIC);
    expect(Object.fromEntries(components.map((c) => [c.name, c.direct]))).toEqual({ a: true, b: false, c: false, d: false });
    expect(await paths('d')).toEqual({ total: 1, paths: [['a', 'b', 'c', 'd']] });
    expect(await paths('a')).toEqual({ total: 1, paths: [['a']] });
  });

  it('diffs two real SBOMs of one project at two versions as a diff of their purls computed here says', async () => {
    // cyclonedx-py's snapshots of one requirements file: 1.2 JSON, then 1.3 XML after certifi and urllib3 were bumped.
    const before = corpus('cyclonedx/cyclonedx-py-requirements-hashes-1.2.cdx.json').toString();
    const after = corpus('cyclonedx/cyclonedx-py-requirements-hashes-1.3.cdx.xml').toString();
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name: 'py' } })).json().id as string;
    for (const [ref, body] of [['release-1', before], ['release-2', after]]) {
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload?ref=${ref}`, headers: { cookie: owner, 'content-type': 'application/octet-stream' }, payload: body });
      expect(res.statusCode, res.body).toBe(202);
    }
    await t.drain();
    // The independent truth: purls read from the documents' text, split at the version.
    const purls = (doc: string) => [...doc.matchAll(/"purl": "([^"]+)"|<purl>([^<]+)<\/purl>/g)].map((m) => (m[1] ?? m[2])!.replace(/[?#].*$/, ''));
    const versions = (doc: string) => {
      const out = new Map<string, Set<string>>();
      for (const purl of purls(doc)) {
        const at = purl.lastIndexOf('@');
        const [pkg, version] = at > 0 ? [purl.slice(0, at), purl.slice(at + 1)] : [purl, ''];
        out.set(pkg, (out.get(pkg) ?? new Set()).add(version));
      }
      return out;
    };
    const [a, b] = [versions(before), versions(after)];
    const expected = {
      added: [...b.keys()].filter((k) => !a.has(k)).length,
      removed: [...a.keys()].filter((k) => !b.has(k)).length,
      changed: [...a.keys()].filter((k) => b.has(k) && [...a.get(k)!].sort().join() !== [...b.get(k)!].sort().join()).length,
    };
    expect(expected.changed).toBeGreaterThan(0);
    const res = await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=release-1&head=release-2`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    const diff = res.json<{ counts: Record<string, number>; changed: { purl: string; from: string[]; to: string[] }[] }>();
    expect({ added: diff.counts.added, removed: diff.counts.removed, changed: diff.counts.changed }).toEqual(expected);
    expect(diff.changed.map((c) => c.purl).sort()).toEqual(['pkg:pypi/certifi', 'pkg:pypi/urllib3']);

    const markdown = await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=release-1&head=release-2`, headers: { cookie: owner, accept: 'text/markdown' } });
    expect(markdown.headers['content-type']).toMatch(/^text\/markdown/);
    expect(markdown.body).toContain('urllib3 1\\.26\\.5 → 2\\.2\\.0');
    const bad = await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=release-1&head=no-such-branch`, headers: { cookie: owner } });
    expect(bad.statusCode).toBe(404);
    expect(bad.headers['content-type']).toMatch(/problem\+json/);
    expect((await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=release-1`, headers: { cookie: owner } })).statusCode).toBe(400);
  });

  it('writes SBOM text into the markdown diff so that it shows as itself', async () => {
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name: 'hostile' } })).json().id as string;
    const hostile = '[click](https://evil.example) @everyone <img src=x onerror=alert(1)> **bold**';
    // CycloneDX 1.6 JSON; a component name is any string.
    const bom = (version: string) => JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: hostile, version }] });
    for (const [ref, version] of [['one', '1.0'], ['two', '2.0']] as const) {
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload?ref=${ref}`, headers: { cookie: owner, 'content-type': 'application/vnd.cyclonedx+json' }, payload: bom(version) });
      expect(res.statusCode, res.body).toBe(202);
    }
    await t.drain();
    const markdown = (await t.request({ url: `/api/v1/repos/${repo}/components/diff?base=one&head=two&format=markdown`, headers: { cookie: owner } })).body;
    const html = (await commonMark())(markdown);
    expect(html).not.toMatch(/<a |<img|<strong>bold/);
    expect(html).toContain('[click](https://evil.example) @');
    expect(html).toContain('everyone &lt;img src=x onerror=alert(1)&gt; **bold**');
  });

  it('an SBOM without a graph: direct unknown, and no paths', async () => {
    const { components, paths } = await sbom('flat', corpus('cyclonedx/grype-0.41.0-log4j-1.4.cdx.xml'));
    expect(components.map((c) => c.direct)).toEqual([null]);
    expect(await paths('log4j-core')).toEqual({ total: 0, paths: [] });
  });
});
