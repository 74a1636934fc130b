import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';

const SCHEMAS = path.join(import.meta.dirname, '../fixtures/schemas');
const schema = (name: string) => JSON.parse(fs.readFileSync(path.join(SCHEMAS, name), 'utf8')) as object;

/** The published schemas use IRIs, which ajv-formats does not know: checked as URLs, which every IRI we write is. */
function iriFormats(ajv: Ajv | Ajv2020) {
  addFormats.default(ajv);
  ajv.addFormat('iri', (value: string) => URL.canParse(value));
  ajv.addFormat('iri-reference', true);
  ajv.addFormat('idn-email', true);
}

const openVexAjv = new Ajv2020({ strict: false, allErrors: true });
iriFormats(openVexAjv);
const validOpenVex = openVexAjv.compile(schema('openvex-0.2.0.schema.json'));

// CycloneDX 1.6 is draft-07 and refers to the SPDX licence list and JSF by relative $ref.
const cycloneDxAjv = new Ajv({ strict: false, allErrors: true });
iriFormats(cycloneDxAjv);
cycloneDxAjv.addSchema(schema('spdx.schema.json')).addSchema(schema('jsf-0.82.schema.json'));
const validCycloneDx = cycloneDxAjv.compile(schema('bom-1.6.schema.json'));

function vulnerability(id: string, name: string, version: string, severity: string) {
  return {
    VulnerabilityID: id, PkgID: `${name}@${version}`, PkgName: name,
    PkgIdentifier: { PURL: `pkg:npm/${name}@${version}`, UID: `${name}-${version}` },
    InstalledVersion: version, Status: 'fixed', Severity: severity, Title: `${name}: ${id}`,
  };
}

/** A Trivy filesystem report (schema 2) as Trivy 0.50 writes it. */
function trivy(vulnerabilities: ReturnType<typeof vulnerability>[]) {
  return JSON.stringify({
    SchemaVersion: 2, CreatedAt: '2024-05-01T10:00:00.000000000Z', ArtifactName: '.', ArtifactType: 'filesystem',
    Metadata: { ImageConfig: { architecture: '', created: '0001-01-01T00:00:00Z', os: '', rootfs: { type: '', diff_ids: null }, config: {} } },
    Results: [{ Target: 'package-lock.json', Class: 'lang-pkgs', Type: 'npm', Vulnerabilities: vulnerabilities }],
  });
}

const LODASH = vulnerability('CVE-2021-23337', 'lodash', '4.17.20', 'HIGH');
const MINIMIST = vulnerability('CVE-2021-44906', 'minimist', '1.2.5', 'CRITICAL');
const SEMVER = vulnerability('CVE-2022-25883', 'semver', '7.3.7', 'MEDIUM');
const QS = vulnerability('CVE-2022-24999', 'qs', '6.10.1', 'HIGH');
const TOUGH = vulnerability('CVE-2023-26136', 'tough-cookie', '4.1.2', 'MEDIUM');

interface Finding { id: string; rule_id: string; state: string }
interface OpenVexStatement { vulnerability: { name: string }; products: { '@id': string }[]; status: string; justification?: string; impact_statement?: string; action_statement?: string }
interface CycloneDxVulnerability { id: string; affects: { ref: string }[]; analysis: { state: string; justification?: string; detail?: string } }

describe.each(DB_KINDS)('VEX export on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let repoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie: owner } = await t.user('owner'));
    const api = orgClient(t);
    const org = await api.createOrg(owner, 'vex');
    repoId = (await api.createRepo(owner, org.id, { name: 'app' })).id;
    const upload = async (body: string) => {
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?category=deps`, headers: { cookie: owner, 'content-type': 'application/json' }, payload: body });
      expect(res.statusCode, res.body).toBe(202);
      await t.drain();
    };
    await upload(trivy([LODASH, MINIMIST, SEMVER, QS, TOUGH]));
    // tough-cookie is upgraded: its finding is fixed.
    await upload(trivy([LODASH, MINIMIST, SEMVER, QS]));
    const findings = (await t.request({ url: `/api/v1/repos/${repoId}/findings?state=all&per_page=100`, headers: { cookie: owner } })).json<Finding[]>();
    const dismiss = async (rule: string, reason: string, comment: string) => {
      const id = findings.find((f) => f.rule_id === rule)!.id;
      const res = await t.request({ method: 'PATCH', url: `/api/v1/findings/${id}`, headers: { cookie: owner }, payload: { state: 'dismissed', reason, comment } });
      expect(res.statusCode, res.body).toBe(200);
    };
    await dismiss('CVE-2021-44906', 'not_affected', 'vulnerable_code_not_in_execute_path');
    await dismiss('CVE-2022-25883', 'false_positive', 'semver is only used by the build scripts');
    await dismiss('CVE-2022-24999', 'wont_fix', 'Waiting for express 5');
  });
  afterAll(() => t.close());

  const exported = async (format: string) => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/vex?format=${format}`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Record<string, unknown>>();
  };

  it('states each vulnerability as OpenVEX, valid against the published schema', async () => {
    const doc = await exported('openvex');
    expect(validOpenVex(doc), JSON.stringify(validOpenVex.errors)).toBe(true);
    expect(doc['@context']).toBe('https://openvex.dev/ns/v0.2.0');
    // The schema is really checked: a status OpenVEX does not know fails it.
    expect(validOpenVex({ ...doc, statements: [{ ...(doc.statements as object[])[0], status: 'exploitable' }] })).toBe(false);
    const statements = Object.fromEntries((doc.statements as OpenVexStatement[]).map((s) => [s.vulnerability.name, s]));
    expect(Object.keys(statements).sort()).toEqual(['CVE-2021-23337', 'CVE-2021-44906', 'CVE-2022-24999', 'CVE-2022-25883', 'CVE-2023-26136']);
    expect(statements['CVE-2021-23337']).toMatchObject({ status: 'affected', products: [{ '@id': 'pkg:npm/lodash@4.17.20' }] });
    expect(statements['CVE-2021-44906']).toMatchObject({ status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path' });
    expect(statements['CVE-2022-25883']).toMatchObject({ status: 'not_affected', impact_statement: 'semver is only used by the build scripts' });
    // Won't fix accepts the vulnerability: still affected, the comment saying what is done about it.
    expect(statements['CVE-2022-24999']).toMatchObject({ status: 'affected', action_statement: 'Waiting for express 5' });
    expect(statements['CVE-2023-26136']).toMatchObject({ status: 'fixed', products: [{ '@id': 'pkg:npm/tough-cookie@4.1.2' }] });
  });

  it('states each vulnerability as a CycloneDX 1.6 analysis, valid against the published schema', async () => {
    const doc = await exported('cyclonedx');
    expect(validCycloneDx(doc), JSON.stringify(validCycloneDx.errors)).toBe(true);
    expect(validCycloneDx({ ...doc, vulnerabilities: [{ id: 'CVE-1', analysis: { state: 'affected' } }] })).toBe(false);
    const analyses = Object.fromEntries((doc.vulnerabilities as CycloneDxVulnerability[]).map((v) => [v.id, v]));
    expect(analyses['CVE-2021-23337']).toMatchObject({ affects: [{ ref: 'pkg:npm/lodash@4.17.20' }], analysis: { state: 'exploitable' } });
    // A person's OpenVEX justification in CycloneDX's words, as stated kept in the detail.
    expect(analyses['CVE-2021-44906']!.analysis).toEqual({
      state: 'not_affected', justification: 'code_not_reachable', detail: 'OpenVEX justification: vulnerable_code_not_in_execute_path.',
    });
    // CycloneDX has a state of its own for a false positive.
    expect(analyses['CVE-2022-25883']!.analysis).toEqual({ state: 'false_positive', detail: 'semver is only used by the build scripts' });
    expect(analyses['CVE-2022-24999']!.analysis).toEqual({ state: 'exploitable', detail: 'Waiting for express 5' });
    expect(analyses['CVE-2023-26136']!.analysis).toEqual({ state: 'resolved' });
  });

  it('refuses an unknown format and an outsider', async () => {
    const bad = await t.request({ url: `/api/v1/repos/${repoId}/vex?format=csaf`, headers: { cookie: owner } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    const { cookie: outsider } = await t.user('outsider');
    expect((await t.request({ url: `/api/v1/repos/${repoId}/vex?format=openvex`, headers: { cookie: outsider } })).statusCode).toBe(404);
  });
});

/** An OpenVEX 0.2.0 document as vexctl writes it. */
function openVex(timestamp: string, statements: Record<string, unknown>[]) {
  return JSON.stringify({
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `https://openvex.dev/docs/public/vex-${timestamp.replace(/\D/g, '')}`,
    author: 'Acme Product Security <psirt@acme.example>',
    timestamp,
    version: 1,
    statements,
  });
}

interface Upload { status: string; counts: { new: number }; tools: string[]; error: string | null }
interface Detail { state: string; dismissal: { reason: string; comment: string | null; by: string | null } | null }

describe.each(DB_KINDS)('VEX import on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let repoId: string;
  let writeKey: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie: owner } = await t.user('owner'));
    const api = orgClient(t);
    const org = await api.createOrg(owner, 'vex-in');
    orgId = org.id;
    repoId = (await api.createRepo(owner, org.id, { name: 'app' })).id;
    writeKey = await t.apiKey(owner, { scopes: ['write'] });
  });
  afterAll(() => t.close());

  const upload = async (body: string): Promise<Upload> => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?category=deps`, headers: { authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return (await t.request({ url: res.headers.location as string, headers: { cookie: owner } })).json<Upload>();
  };
  const findings = async () => Object.fromEntries((await t.request({ url: `/api/v1/repos/${repoId}/findings?state=all&per_page=100`, headers: { cookie: owner } }))
    .json<Finding[]>().map((f) => [f.rule_id, f]));
  const detail = async (rule: string) => (await t.request({ url: `/api/v1/findings/${(await findings())[rule]!.id}`, headers: { cookie: owner } })).json<Detail>();
  const history = async (rule: string) => (await t.request({ url: `/api/v1/findings/${(await findings())[rule]!.id}/history`, headers: { cookie: owner } }))
    .json<{ event: string }[]>().map((e) => e.event);
  const exported = async (format: string) => (await t.request({ url: `/api/v1/repos/${repoId}/vex?format=${format}`, headers: { cookie: owner } })).json<Record<string, unknown>>();

  it('applies an OpenVEX document to the findings it names, keeps what names none, and exports the same statements', async () => {
    await upload(trivy([LODASH, MINIMIST, SEMVER]));
    const vex = await upload(openVex('2024-06-01T10:00:00Z', [
      {
        vulnerability: { name: 'CVE-2021-44906' }, products: [{ '@id': 'pkg:npm/minimist@1.2.5' }], status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path', impact_statement: 'minimist only parses our own command-line flags',
      },
      { vulnerability: { name: 'CVE-2021-23337' }, products: [{ '@id': 'pkg:npm/lodash' }], status: 'affected', action_statement: 'Upgrade lodash to 4.17.21' },
      // About a package nobody reported yet: kept for when it appears.
      {
        vulnerability: { name: 'GHSA-72xf-g2v4-qvf3', aliases: ['CVE-2023-26136'] },
        products: [{ '@id': 'pkg:oci/app', subcomponents: [{ '@id': 'pkg:npm/tough-cookie' }] }], status: 'not_affected', justification: 'vulnerable_code_not_present',
      },
    ]));
    // A VEX reports no results of its own: it changes triage, nothing else.
    expect(vex).toMatchObject({ status: 'complete', error: null, tools: [] });
    expect(await detail('CVE-2021-44906')).toMatchObject({
      state: 'dismissed', dismissal: { reason: 'not_affected', comment: 'vulnerable_code_not_in_execute_path: minimist only parses our own command-line flags', by: null },
    });
    expect(await history('CVE-2021-44906')).toEqual(['opened', 'dismissed_by_vex']);
    expect((await detail('CVE-2021-23337')).state).toBe('open');

    const next = await upload(trivy([LODASH, MINIMIST, SEMVER, TOUGH]));
    expect(next.counts.new).toBe(0);
    expect(await detail('CVE-2023-26136')).toMatchObject({ state: 'dismissed', dismissal: { reason: 'not_affected', comment: 'vulnerable_code_not_present' } });

    const doc = await exported('openvex');
    expect(validOpenVex(doc), JSON.stringify(validOpenVex.errors)).toBe(true);
    const statements = Object.fromEntries((doc.statements as OpenVexStatement[]).map((s) => [s.vulnerability.name, s]));
    expect(statements['CVE-2021-44906']).toMatchObject({
      status: 'not_affected', products: [{ '@id': 'pkg:npm/minimist@1.2.5' }],
      justification: 'vulnerable_code_not_in_execute_path', impact_statement: 'minimist only parses our own command-line flags',
    });
    expect(statements['CVE-2021-23337']).toMatchObject({ status: 'affected', products: [{ '@id': 'pkg:npm/lodash@4.17.20' }] });
    expect(statements['CVE-2023-26136']).toMatchObject({ status: 'not_affected', justification: 'vulnerable_code_not_present' });
    const audit = await t.request({ url: `/api/v1/orgs/${orgId}/audit?action=finding.dismissed`, headers: { cookie: owner } });
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json<{ actor: unknown; target: { type: string; id: string }; details: Record<string, unknown> }[]>()).toContainEqual(expect.objectContaining({
      actor: null, target: { type: 'upload', id: expect.any(String) as string }, details: expect.objectContaining({ by: 'vex', findings: 1, reason: 'not_affected' }) as object,
    }));
  });

  it('reopens what a VEX dismissed when a later one says affected, never what a person dismissed', async () => {
    const semver = (await findings())['CVE-2022-25883']!;
    const res = await t.request({ method: 'PATCH', url: `/api/v1/findings/${semver.id}`, headers: { cookie: owner }, payload: { state: 'dismissed', reason: 'wont_fix', comment: 'Build tooling only' } });
    expect(res.statusCode, res.body).toBe(200);
    await upload(openVex('2024-07-01T10:00:00Z', [
      { vulnerability: { name: 'CVE-2021-44906' }, products: [{ '@id': 'pkg:npm/minimist@1.2.5' }], status: 'under_investigation' },
      { vulnerability: { name: 'CVE-2022-25883' }, products: [{ '@id': 'pkg:npm/semver' }], status: 'affected', action_statement: 'Upgrade semver' },
    ]));
    expect((await detail('CVE-2021-44906')).state).toBe('open');
    expect(await history('CVE-2021-44906')).toEqual(['opened', 'dismissed_by_vex', 'reopened_by_vex']);
    expect(await detail('CVE-2022-25883')).toMatchObject({ state: 'dismissed', dismissal: { reason: 'wont_fix', comment: 'Build tooling only' } });
  });

  it('applies a CycloneDX VEX (analysis, no components) and exports its state back', async () => {
    const analyses = async () => (await t.request({ url: `/api/v1/repos/${repoId}/status`, headers: { cookie: owner } }))
      .json<{ analyses: { tool: string; category: string; format: string }[] }>().analyses.map((a) => `${a.tool}/${a.category}/${a.format}`);
    const before = await analyses();
    const vex = await upload(JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79', version: 1,
      vulnerabilities: [{
        id: 'CVE-2021-23337', source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337' },
        analysis: { state: 'false_positive', detail: 'The template function is never called with user input.' },
        affects: [{ ref: 'pkg:npm/lodash@4.17.20' }],
      }],
    }));
    expect(vex).toMatchObject({ status: 'complete', tools: [] });
    expect(await detail('CVE-2021-23337')).toMatchObject({ state: 'dismissed', dismissal: { reason: 'false_positive', comment: 'The template function is never called with user input.' } });
    expect(await analyses()).toEqual(before);

    const doc = await exported('cyclonedx');
    expect(validCycloneDx(doc), JSON.stringify(validCycloneDx.errors)).toBe(true);
    const lodash = (doc.vulnerabilities as CycloneDxVulnerability[]).find((v) => v.id === 'CVE-2021-23337')!;
    expect(lodash).toMatchObject({ affects: [{ ref: 'pkg:npm/lodash@4.17.20' }], analysis: { state: 'false_positive', detail: 'The template function is never called with user input.' } });
  });

  it("exports a justification in the other format's words, keeping the original in the statement's words", async () => {
    const reason = 'minimist is only reached by our own build scripts, never with outside input.';
    await upload(JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: 'urn:uuid:0b9c3a52-5d0e-4c38-9a55-2f1c8c1f6d3e', version: 1,
      vulnerabilities: [{
        id: 'CVE-2021-44906', analysis: { state: 'not_affected', justification: 'code_not_reachable', detail: reason },
        affects: [{ ref: 'pkg:npm/minimist@1.2.5' }],
      }],
    }));
    expect(await detail('CVE-2021-44906')).toMatchObject({ state: 'dismissed', dismissal: { reason: 'not_affected', comment: `code_not_reachable: ${reason}` } });
    await upload(openVex('2024-08-01T10:00:00Z', [{
      vulnerability: { name: 'CVE-2023-26136' }, products: [{ '@id': 'pkg:npm/tough-cookie@4.1.2' }], status: 'not_affected',
      justification: 'vulnerable_code_not_present', impact_statement: 'The cookie jar is compiled out of our build.',
    }]));

    const openvex = await exported('openvex');
    expect(validOpenVex(openvex), JSON.stringify(validOpenVex.errors)).toBe(true);
    const statements = Object.fromEntries((openvex.statements as OpenVexStatement[]).map((s) => [s.vulnerability.name, s]));
    expect(statements['CVE-2021-44906']).toMatchObject({
      status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path', impact_statement: `CycloneDX justification: code_not_reachable. ${reason}`,
    });
    expect(statements['CVE-2023-26136']).toMatchObject({
      status: 'not_affected', justification: 'vulnerable_code_not_present', impact_statement: 'The cookie jar is compiled out of our build.',
    });

    const cyclonedx = await exported('cyclonedx');
    expect(validCycloneDx(cyclonedx), JSON.stringify(validCycloneDx.errors)).toBe(true);
    const analyses = Object.fromEntries((cyclonedx.vulnerabilities as CycloneDxVulnerability[]).map((v) => [v.id, v.analysis]));
    expect(analyses['CVE-2021-44906']).toEqual({ state: 'not_affected', justification: 'code_not_reachable', detail: reason });
    expect(analyses['CVE-2023-26136']).toEqual({
      state: 'not_affected', justification: 'code_not_present', detail: 'OpenVEX justification: vulnerable_code_not_present. The cookie jar is compiled out of our build.',
    });
  });

  it('fails a VEX that is not one, saying why', async () => {
    const bad = await upload(JSON.stringify({ '@context': 'https://openvex.dev/ns/v0.2.0', statements: [{ vulnerability: { name: 'CVE-1' }, products: [], status: 'exploitable' }] }));
    expect(bad.status).toBe('failed');
    expect(bad.error).toContain('statements[0].status must be one of');
  });
});
