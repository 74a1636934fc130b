import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/scans/detect.js';
import { parseScan } from '../../src/scans/parsers/index.js';
import type { NormalisedScan } from '../../src/domain/scan.js';
import { CORPUS, EXPECTED } from '../support/corpus.js';



function corpusFiles(): string[] {
  return readdirSync(CORPUS)
    .filter((entry) => statSync(path.join(CORPUS, entry)).isDirectory())
    .flatMap((dir) => readdirSync(path.join(CORPUS, dir)).map((file) => `${dir}/${file}`))
    .sort();
}

const cache = new Map<string, NormalisedScan>();

/** Detects with no hint at all, as for an upload with a generic content type. */
function load(file: string): NormalisedScan {
  let scan = cache.get(file);
  if (!scan) {
    const body = readFileSync(path.join(CORPUS, file));
    const { format, syntax } = detectFormat(body, { contentType: 'application/octet-stream' });
    scan = parseScan(body, format, syntax);
    cache.set(file, scan);
  }
  return scan;
}

function only(file: string) {
  const [analysis, ...rest] = load(file).analyses;
  expect(rest).toHaveLength(0);
  if (!analysis) throw new Error(`${file} gave no analysis`);
  return analysis;
}

describe('scanner output corpus', () => {
  it('has an expectation for every file in the corpus, and none for a file that is gone', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(corpusFiles());
  });

  it('agrees with MANIFEST.tsv on which files there are', () => {
    const manifest = readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8')
      .split('\n')
      .slice(1)
      .filter((row) => row.trim() !== '')
      .map((row) => row.split('\t')[0]);
    expect(manifest.sort()).toEqual(corpusFiles());
  });

  it.each(Object.entries(EXPECTED))('%s', (file, expected) => {
    const body = readFileSync(path.join(CORPUS, file));
    expect(detectFormat(body, {})).toEqual({ format: expected.format, syntax: expected.syntax });
    const scan = load(file);
    expect(scan.format).toBe(expected.format);
    expect(scan.analyses.map((analysis) => analysis.tool.name)).toEqual(expected.tools);
    const total = (pick: (a: NormalisedScan['analyses'][number]) => unknown[]) =>
      scan.analyses.reduce((sum, analysis) => sum + pick(analysis).length, 0);
    expect(total((a) => a.findings)).toBe(expected.findings);
    expect(total((a) => a.components)).toBe(expected.components);
    expect(total((a) => a.dependencies)).toBe(expected.dependencies);
    for (const analysis of scan.analyses) {
      for (const finding of analysis.findings) {
        expect(finding.ruleId).not.toBe('');
        expect(finding.message).not.toBe('');
      }
    }
  });
});

describe('corpus spot checks', () => {
  it('merges the four Snyk runs of one tool into one analysis', () => {
    const snyk = only('sarif/snyk-open-source-all-projects.sarif');
    expect(snyk.tool).toEqual({ name: 'Snyk Open Source', version: null });
    expect(snyk.findings.map((f) => f.filePath)).toEqual([
      'packages/http-client/package.json',
      'packages/http-client/package.json',
      'packages/http-server/package.json',
      'packages/http-server/package.json',
      'packages/protocol/package.json',
      'packages/protocol/package.json',
    ]);
    expect(snyk.findings[1]).toMatchObject({ ruleId: 'SNYK-JS-LODASH-1040724', level: 'error', severity: 'high' });
  });

  it('keeps a clean scan as an analysis with no findings', () => {
    const clean = only('sarif/semgrep-1.66.2-no-results.sarif');
    expect(clean.tool).toEqual({ name: 'Semgrep', version: '1.66.2' });
    expect(clean.findings).toEqual([]);
  });

  it('reads CodeQL: rule level, partial fingerprints, and message links to related locations as plain text', () => {
    const [first] = only('sarif/codeql-2.2.4-js-xss.sarif').findings;
    expect(first).toMatchObject({
      ruleId: 'js/xss',
      ruleName: 'Client-side cross-site scripting',
      message: 'Cross-site scripting vulnerability due to user-provided value.',
      level: 'error',
      severity: 'high',
      filePath: 'examples/Xss.js',
      startLine: 4,
      endLine: 4,
      fingerprint: 'primaryLocationLineHash=f10617abe5e779f0:1|primaryLocationStartColumnFingerprint=15',
    });
  });

  it('resolves the rule of old Gitleaks results, which name none, from the message', () => {
    const gitleaks = only('sarif/gitleaks-7.4.0.sarif');
    expect(gitleaks.tool).toEqual({ name: 'Gitleaks', version: 'v7.4.0' });
    expect(gitleaks.findings.map((f) => f.ruleId)).toEqual([
      'AWS Access Key',
      'AWS Access Key',
      'Asymmetric Private Key',
      'AWS Access Key',
      'AWS Access Key',
      'Asymmetric Private Key',
      'AWS Access Key',
      'AWS Access Key',
    ]);
    expect(gitleaks.findings[0]).toMatchObject({ startLine: 13, severity: 'medium', level: 'warning', commitSha: '6d127980966808f7413935678e079dcd7fedf9c2' });
    expect(JSON.stringify(gitleaks.findings)).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('takes the dependency-check location from its artifact and the purl from the logical location', () => {
    const sarif = JSON.parse(readFileSync(path.join(CORPUS, 'sarif/dependency-check-7.1.0.sarif'), 'utf8'));
    const [finding] = only('sarif/dependency-check-7.1.0.sarif').findings;
    expect(finding?.filePath).toBe(sarif.runs[0].artifacts[40].location.uri);
    expect(finding).toMatchObject({
      ruleId: 'CVE-2022-24823',
      severity: 'medium',
      fingerprint: 'vulnerabilityHash=f9066a800e3c40b07b50820d2b44de88',
      purl: 'pkg:maven/io.netty/netty-transport@4.1.76.Final',
      packageName: 'netty-transport',
      packageVersion: '4.1.76.Final',
      startLine: null,
    });
  });

  it('writes KICS Windows paths with forward slashes and keeps kind "fail"', () => {
    const [finding] = only('sarif/kics-github-actions.sarif').findings;
    expect(finding).toMatchObject({
      filePath: 'path/test/fixtures/test_sarif_cwe_report/run_block_injection/test/positive1.yaml',
      kind: 'fail',
      severity: 'high',
      helpUri: 'https://securitylab.github.com/research/github-actions-untrusted-input/',
    });
  });

  it('rates Trivy SARIF results from their level', () => {
    const trivy = only('sarif/trivy-image-alpine-310.sarif');
    expect(trivy.tool).toEqual({ name: 'Trivy', version: 'dev' });
    expect(trivy.findings.map((f) => f.severity)).toEqual([
      'medium', 'medium', 'medium', 'low', 'medium', 'medium', 'medium', 'low',
    ]);
    expect(trivy.findings[0]).toMatchObject({
      filePath: 'testdata/fixtures/images/alpine-310.tar.gz',
      helpUri: 'https://avd.aquasec.com/nvd/cve-2019-1549',
    });
  });

  it('rates grype CycloneDX vulnerabilities from their highest rating and ties them to the component', () => {
    const grype = only('cyclonedx/grype-0.41.0-log4j-1.4.cdx.xml');
    expect(grype.tool).toEqual({ name: 'Grype', version: '0.41.0' });
    expect(grype.findings.map((f) => [f.ruleId, f.severity])).toEqual([
      ['CVE-2021-44228', 'critical'],
      ['CVE-2021-44832', 'medium'],
      ['CVE-2021-45046', 'critical'],
      ['CVE-2021-45105', 'medium'],
      ['GHSA-7rjr-3q55-vv33', 'critical'],
      ['GHSA-8489-44mv-ggj8', 'medium'],
      ['GHSA-jfh8-c2jp-5v3q', 'critical'],
      ['GHSA-p6xc-xr62-6r2g', 'high'],
    ]);
    expect(grype.findings[0]).toMatchObject({
      securitySeverity: 10,
      packageName: 'log4j-core',
      packageVersion: '2.13.2',
      purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2',
      fingerprint: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2',
      filePath: null,
    });
    // metadata.component (the scanned directory) is the subject, not a component.
    expect(grype.components.map((c) => c.name)).toEqual(['log4j-core']);
  });

  it('takes the highest of several Trivy CycloneDX ratings', () => {
    const fluentd = only('cyclonedx/trivy-image-fluentd-vulns-1.6.cdx.json');
    expect(fluentd.findings.map((f) => [f.ruleId, f.severity, f.packageName])).toEqual([
      ['CVE-2019-18224', 'critical', 'libidn2-0'],
      ['CVE-2019-18276', 'high', 'bash'],
      ['CVE-2020-8165', 'critical', 'activesupport'],
    ]);
    expect(fluentd.components.find((c) => c.name === 'debian')?.type).toBe('operating-system');
  });

  it('reads nested CycloneDX XML components with expressions, named licences and the nested graph', () => {
    const npm = only('cyclonedx/cyclonedx-npm-bundled-deps-1.6.cdx.xml');
    const byRef = new Map(npm.components.map((c) => [c.ref, c]));
    expect(byRef.get('bundle-dependencies@1.0.2|ansi-regex@2.0.0')).toEqual({
      ref: 'bundle-dependencies@1.0.2|ansi-regex@2.0.0',
      name: 'ansi-regex',
      version: '2.0.0',
      purl: 'pkg:npm/ansi-regex@2.0.0',
      type: 'library',
      licenses: ['MIT'],
      hashes: [],
    });
    expect(byRef.get('bundle-dependencies@1.0.2|spdx-expression-parse@1.0.2')?.licenses).toEqual([
      '(MIT AND CC-BY-3.0)',
    ]);
    expect(byRef.get('bundle-dependencies@1.0.2|symbol@0.2.1')?.licenses).toEqual(['MPLv2.0']);
    expect(byRef.has('demo-bundled-deps@0.0.0')).toBe(false);
    expect(npm.dependencies.find((d) => d.ref === 'bundle-dependencies@1.0.2|cliui@3.1.0')?.dependsOn).toEqual([
      'bundle-dependencies@1.0.2|string-width@1.0.1',
      'bundle-dependencies@1.0.2|strip-ansi@3.0.1',
      'bundle-dependencies@1.0.2|wrap-ansi@1.0.0',
    ]);
  });

  it('reads CycloneDX hashes, empty versions and the 1.5 tools object', () => {
    const conda = only('cyclonedx/trivy-conda-1.6.cdx.json');
    expect(conda.components[0]).toMatchObject({
      name: 'openssl',
      licenses: ['OpenSSL'],
      hashes: [{ alg: 'SHA-1', value: '237db0da53131e4548cb1181337fa0f420299e1f' }],
    });
    const requirements = only('cyclonedx/cyclonedx-py-requirements-hashes-1.2.cdx.json');
    expect(requirements.components.find((c) => c.name === 'colorama')?.version).toBeNull();
    expect(only('cyclonedx/cyclonedx-py-requirements-local-1.5.cdx.json').tool).toEqual({
      name: 'cyclonedx-py',
      version: 'thisVersion-testing',
    });
  });

  it('reads the SPDX spec example packages, not its files nor glibc, the package it describes', () => {
    const example = only('spdx/spdx-spec-example-2.3.spdx');
    expect(example.tool).toEqual({ name: 'LicenseFind', version: '1.0' });
    // "Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-Package" (glibc): the root, where the graph starts.
    expect(example.roots).toEqual(['SPDXRef-Package']);
    expect(example.components.map((c) => c.name)).toEqual(['Apache Commons Lang', 'Jena', 'Saxon']);
    expect(example.components[0]?.licenses).toEqual([]);
    expect(example.components[1]?.purl).toBe('pkg:maven/org.apache.jena/apache-jena@3.12.0');
    expect(example.components[2]).toMatchObject({
      ref: 'SPDXRef-Saxon',
      version: '8.8',
      licenses: ['MPL-1.0'],
      hashes: [{ alg: 'SHA-1', value: '85ed0817af83a24ad8da68c2b5094de69833983c' }],
    });
  });

  it('reads the Trivy SPDX JSON graph, licence NONE and purposes', () => {
    const env = only('spdx/trivy-conda-environment-2.3.spdx.json');
    expect(env.tool).toEqual({ name: 'Trivy', version: 'dev' });
    expect(env.components.find((c) => c.name === 'bzip2')).toMatchObject({
      purl: 'pkg:conda/bzip2@1.0.8',
      type: 'library',
      licenses: [],
    });
    const conda = only('spdx/trivy-conda-2.2.spdx.json');
    // The described filesystem is the root: its application and packages are the components.
    expect(conda.components.map((c) => c.name)).toEqual(['conda-pkg', 'openssl', 'pip']);
    expect(conda.dependencies).toEqual([
      { ref: 'SPDXRef-Filesystem-6e0ac6a0fab50ab4', dependsOn: ['SPDXRef-Application-ee5ef1aa4ac89125'] },
      {
        ref: 'SPDXRef-Application-ee5ef1aa4ac89125',
        dependsOn: ['SPDXRef-Package-2984084f02572600', 'SPDXRef-Package-ac33eb699b3aa81d'],
      },
    ]);
  });

  it('reads native findings reports', () => {
    expect(only('findings/npm-audit-v2-npm7-low.json').findings[0]).toMatchObject({
      ruleId: 'GHSA-c6rq-rjc2-86v2',
      severity: 'low',
      packageName: 'chownr',
      helpUri: 'https://github.com/advisories/GHSA-c6rq-rjc2-86v2',
    });
    expect(only('findings/osv-scanner-malicious-npm.json').findings[0]).toMatchObject({
      ruleId: 'MAL-2023-1035',
      severity: 'critical',
      packageName: 'flot-axis',
      packageVersion: '0.0.0',
      filePath: '/tmp/components/yarn.lock',
    });
    expect(only('findings/semgrep-1.30.0.json').findings[0]).toMatchObject({
      severity: 'medium',
      level: 'WARNING',
      filePath: 'test.go',
      startLine: 27,
      endLine: 30,
    });
    expect(only('findings/trivy-image-alpine-39-high-critical.json').findings[1]).toMatchObject({
      ruleId: 'CVE-2019-14697',
      severity: 'critical',
      securitySeverity: 9.8,
      fingerprint: 'musl-utils@1.1.20-r4',
      filePath: null,
    });
  });
});
