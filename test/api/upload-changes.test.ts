import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';

interface Component { id: string; name: string; version: string | null; licenses: string[]; depends_on: string[]; upload_id: string }
interface Finding { rule_id: string; state: string; first_upload_id: string; fixed_upload_id: string | null; reopened_upload_id: string | null }

describe.each(DB_KINDS)('what an upload changed, on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let repoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    cookie = (await t.user('owner')).cookie;
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'changes' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie }, payload: { name: 'app' } })).json().id;
  });
  afterAll(() => t.close());

  const upload = async (results: SarifResultSpec[]) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog(results) });
    expect(res.statusCode).toBe(202);
    await t.drain();
    return (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie } })).json<{ id: string; counts: Record<string, number> }>();
  };
  const findings = async (query: string) => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?${query}`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const items = res.json<Finding[]>();
    expect(Number(res.headers['x-total-count'])).toBe(items.length);
    return items.sort((a, b) => a.rule_id.localeCompare(b.rule_id));
  };
  const rules = (items: Finding[]) => items.map((f) => f.rule_id);

  const A: SarifResultSpec[] = [
    { rule: 'sql-injection', file: 'src/db.js', level: 'error' },
    { rule: 'xss', file: 'src/view.js', level: 'error' },
    { rule: 'weak-hash', file: 'src/hash.js', level: 'note' },
  ];
  const B: SarifResultSpec[] = [A[0]!, A[2]!, { rule: 'path-traversal', file: 'src/files.js', level: 'error' }];

  it('lists the findings an upload introduced, fixed and reopened, whatever their state now', async () => {
    const first = await upload(A);
    const second = await upload(B);
    expect(second.counts).toMatchObject({ new: 1, fixed: 1, reopened: 0 });
    const third = await upload(A);
    expect(third.counts).toMatchObject({ new: 0, fixed: 1, reopened: 1 });

    expect(rules(await findings(`introduced_in=${first.id}`))).toEqual(['sql-injection', 'weak-hash', 'xss']);
    // path-traversal was new in the second upload and is fixed now: still what that upload introduced.
    const introduced = await findings(`introduced_in=${second.id}`);
    expect(introduced).toMatchObject([{ rule_id: 'path-traversal', state: 'fixed', first_upload_id: second.id, fixed_upload_id: third.id }]);
    expect(await findings(`introduced_in=${second.id}&state=open`)).toEqual([]);

    // A reopened finding is not new: it keeps its first upload and names the one that reopened it.
    expect(await findings(`introduced_in=${third.id}`)).toEqual([]);
    const reopened = await findings(`reopened_in=${third.id}`);
    expect(reopened).toMatchObject([{ rule_id: 'xss', state: 'open', first_upload_id: first.id, fixed_upload_id: null, reopened_upload_id: third.id }]);
    expect(reopened).toHaveLength(third.counts.reopened!);

    expect(rules(await findings(`fixed_in=${third.id}`))).toEqual(['path-traversal']);
    // The second upload fixed xss, but it came back: it is no longer listed as fixed by it.
    expect(await findings(`fixed_in=${second.id}`)).toEqual([]);

    const open = await findings('');
    expect(rules(open)).toEqual(['sql-injection', 'weak-hash', 'xss']);
    expect(open.every((f) => f.state === 'open')).toBe(true);
  });

  it('finds nothing for an upload of another repository, and refuses an overlong id', async () => {
    expect(await findings('introduced_in=0192f0c0-0000-7000-8000-000000000000')).toEqual([]);
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?fixed_in=${'x'.repeat(65)}`, headers: { cookie } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].path).toContain('fixed_in');
  });

  interface Spec { name: string; version: string; license?: string; dependsOn?: string[]; ref?: boolean }
  /** A CycloneDX 1.6 BOM as cdxgen writes one: bom-refs are purls, licenses by SPDX id, a dependency graph. */
  const bom = (specs: Spec[]) => JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] } },
    components: specs.map((c) => ({
      type: 'library', ...(c.ref === false ? {} : { 'bom-ref': `pkg:npm/${c.name}@${c.version}` }), name: c.name, version: c.version,
      ...(c.ref === false ? {} : { purl: `pkg:npm/${c.name}@${c.version}` }), licenses: [{ license: { id: c.license ?? 'MIT' } }],
    })),
    dependencies: specs.filter((c) => c.ref !== false).map((c) => ({ ref: `pkg:npm/${c.name}@${c.version}`, dependsOn: c.dependsOn ?? [] })),
  });
  const uploadBom = async (specs: Spec[]) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie, 'content-type': 'application/vnd.cyclonedx+json' }, payload: bom(specs) });
    expect(res.statusCode).toBe(202);
    await t.drain();
    const done = (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie } })).json<{ id: string; status: string; counts: { components: number } }>();
    expect(done.status).toBe('complete');
    return done;
  };
  const components = async () => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/components?per_page=100`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    return res.json<Component[]>();
  };
  const byName = (list: Component[], name: string) => list.filter((c) => c.name === name);

  it('keeps the rows of components it lists as they were, and writes those that changed', async () => {
    const first: Spec[] = [
      { name: 'express', version: '4.21.0', dependsOn: ['pkg:npm/accepts@1.3.8'] },
      { name: 'accepts', version: '1.3.8' },
      { name: 'qs', version: '6.13.0' },
      { name: 'licensed', version: '1.0.0' },
      // Listed twice, without a bom-ref: two rows, both kept.
      { name: 'vendored', version: '0.1.0', ref: false },
      { name: 'vendored', version: '0.1.0', ref: false },
    ];
    const one = await uploadBom(first);
    const before = await components();
    expect(before).toHaveLength(6);
    expect(new Set(before.map((c) => c.upload_id))).toEqual(new Set([one.id]));

    // Unchanged: every row stays, with the upload that brought it.
    const two = await uploadBom(first);
    expect(two.counts.components).toBe(6);
    expect(await components()).toEqual(before);
    const analyses = (await t.request({ url: `/api/v1/repos/${repoId}/analyses`, headers: { cookie } })).json<{ format: string; last_upload_id: string }[]>();
    expect(analyses.filter((a) => a.format === 'cyclonedx').map((a) => a.last_upload_id)).toEqual([two.id]);

    // One of each change: a version bump, new dependencies, another licence, a duplicate dropped, one added, one removed.
    const three = await uploadBom([
      { name: 'express', version: '4.21.0', dependsOn: ['pkg:npm/accepts@1.3.8'] },
      { name: 'accepts', version: '1.3.8', dependsOn: ['pkg:npm/mime-types@2.1.35'] },
      { name: 'qs', version: '6.13.1' },
      { name: 'licensed', version: '1.0.0', license: 'Apache-2.0' },
      { name: 'vendored', version: '0.1.0', ref: false },
      { name: 'mime-types', version: '2.1.35' },
    ]);
    const after = await components();
    expect(after).toHaveLength(6);
    const was = (name: string) => byName(before, name);
    expect(byName(after, 'express')).toEqual(was('express'));
    const [vendored] = byName(after, 'vendored');
    expect(was('vendored')).toContainEqual(vendored);
    expect(byName(after, 'accepts')).toMatchObject([{ depends_on: ['pkg:npm/mime-types@2.1.35'], upload_id: three.id }]);
    expect(byName(after, 'qs')).toMatchObject([{ version: '6.13.1', upload_id: three.id }]);
    expect(byName(after, 'licensed')).toMatchObject([{ licenses: ['Apache-2.0'], upload_id: three.id }]);
    expect(byName(after, 'mime-types')).toMatchObject([{ upload_id: three.id }]);
    for (const name of ['accepts', 'qs', 'licensed']) expect(was(name).map((c) => c.id)).not.toContain(byName(after, name)[0]!.id);

    // An SBOM that lists nothing leaves nothing.
    expect((await uploadBom([])).counts.components).toBe(0);
    expect(await components()).toEqual([]);
  });
});
