import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/scans/detect.js';
import { fingerprintAll, fingerprintDistinct, fingerprintDistinctInTurns } from '../../src/scans/fingerprint.js';
import { GenericFindingsSchema } from '../../src/scans/parsers/findings/generic.js';
import { parseScan } from '../../src/scans/parsers/index.js';
import { type NormalisedAnalysis } from '../../src/domain/scan.js';
import { ParseError } from '../../src/scans/parsers/types.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');

function analysisOf(report: unknown): NormalisedAnalysis {
  const body = Buffer.from(typeof report === 'string' ? report : JSON.stringify(report));
  const { format, syntax } = detectFormat(body, {});
  expect(format).toBe('findings');
  const [analysis, ...rest] = parseScan(body, format, syntax).analyses;
  expect(rest).toHaveLength(0);
  if (!analysis) throw new Error('no analysis');
  return analysis;
}

function parseError(report: unknown): string {
  try {
    parseScan(Buffer.from(JSON.stringify(report)), 'findings', 'json');
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as Error).message;
  }
  throw new Error('the report was accepted');
}

describe('Trivy JSON', () => {
  const report = {
    SchemaVersion: 2,
    ArtifactName: '.',
    ArtifactType: 'repository',
    Results: [
      {
        Target: 'package-lock.json',
        Class: 'lang-pkgs',
        Type: 'npm',
        Vulnerabilities: [
          {
            VulnerabilityID: 'CVE-2021-23337',
            PkgName: 'lodash',
            PkgIdentifier: { PURL: 'pkg:npm/lodash@4.17.20' },
            InstalledVersion: '4.17.20',
            Title: 'nodejs-lodash: command injection via template',
            Severity: 'HIGH',
            SeveritySource: 'ghsa',
            PrimaryURL: 'https://avd.aquasec.com/nvd/cve-2021-23337',
            CVSS: { ghsa: { V3Score: 7.2 }, nvd: { V3Score: 7.5 } },
          },
          { VulnerabilityID: 'CVE-2000-0001', PkgName: 'old', InstalledVersion: '1', Severity: 'UNKNOWN', CVSS: { nvd: { V3Score: 9.5 } } },
        ],
      },
      {
        Target: 'main.tf',
        Class: 'config',
        Type: 'terraform',
        Misconfigurations: [
          {
            ID: 'AVD-AWS-0086',
            Title: 'S3 Access block should block public ACL',
            Message: 'No public access block so not blocking public acls',
            Severity: 'HIGH',
            Status: 'FAIL',
            PrimaryURL: 'https://avd.aquasec.com/misconfig/avd-aws-0086',
            CauseMetadata: { StartLine: 1, EndLine: 4 },
          },
          { ID: 'AVD-AWS-0087', Title: 'Passing check', Severity: 'LOW', Status: 'PASS' },
        ],
      },
      {
        Target: '.env',
        Class: 'secret',
        Secrets: [
          {
            RuleID: 'aws-access-key-id',
            Category: 'AWS',
            Severity: 'CRITICAL',
            Title: 'AWS Access Key ID',
            StartLine: 2,
            EndLine: 2,
            Match: 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
            Code: { Lines: [{ Content: 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE' }] },
          },
        ],
      },
    ],
  };

  it('reads vulnerabilities, failed misconfigurations and secrets', () => {
    const trivy = analysisOf(report);
    expect(trivy.tool).toEqual({ name: 'Trivy', version: null });
    expect(trivy.findings.map((f) => [f.ruleId, f.severity, f.filePath, f.startLine])).toEqual([
      ['CVE-2021-23337', 'high', 'package-lock.json', null],
      ['CVE-2000-0001', 'critical', 'package-lock.json', null],
      ['AVD-AWS-0086', 'high', 'main.tf', 1],
      ['aws-access-key-id', 'critical', '.env', 2],
    ]);
    expect(trivy.findings[0]).toMatchObject({
      purl: 'pkg:npm/lodash@4.17.20',
      fingerprint: 'pkg:npm/lodash@4.17.20',
      securitySeverity: 7.2,
      level: 'HIGH',
      helpUri: 'https://avd.aquasec.com/nvd/cve-2021-23337',
    });
    expect(trivy.findings[2]?.message).toBe('No public access block so not blocking public acls');
    expect(JSON.stringify(trivy.findings)).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('keeps the identity of Trivy secrets when the lines around them move', () => {
    const secretsAt = (...lines: number[]) => ({
      SchemaVersion: 2,
      Results: [{
        Target: '.env',
        Class: 'secret',
        Secrets: lines.map((at) => ({ RuleID: 'aws-access-key-id', Severity: 'CRITICAL', Title: 'AWS Access Key ID', StartLine: at, EndLine: at })),
      }],
    });
    const before = fingerprintAll(analysisOf(secretsAt(2, 9)).findings);
    const moved = fingerprintAll(analysisOf(secretsAt(14, 21)).findings);
    expect(new Set(before).size).toBe(2);
    expect(moved).toEqual(before);
    // Collapsing repeats changes no identity where the tool repeated nothing (stored findings keep theirs).
    expect([...fingerprintDistinct(analysisOf(secretsAt(2, 9)).findings).findings.keys()]).toEqual(before);
    const repeated = fingerprintDistinct(analysisOf(secretsAt(2, 2, 9)).findings);
    expect([...repeated.findings.keys()]).toEqual(before);
    expect([...repeated.repeats]).toEqual([[before[0], 2]]);
  });

  it('gives the same fingerprints, ordinals and repeats a slice at a time as all at once', async () => {
    // Repeats (2, 2) and distinct occurrences of one identity (2, 9, 30) fall on both sides of each slice boundary.
    const findings = analysisOf({
      SchemaVersion: 2,
      Results: [{
        Target: '.env',
        Class: 'secret',
        Secrets: [2, 2, 9, 2, 30, 9, 9, 41].map((at) => ({ RuleID: 'aws-access-key-id', Severity: 'CRITICAL', Title: 'AWS Access Key ID', StartLine: at, EndLine: at })),
      }],
    }).findings;
    const whole = fingerprintDistinct(findings);
    expect(whole.findings.size).toBe(4);
    expect([...whole.repeats.values()]).toEqual([3, 3]);
    for (const perTurn of [1, 2, 3, 5, 8]) {
      const inTurns = await fingerprintDistinctInTurns(findings, perTurn);
      expect([...inTurns.findings]).toEqual([...whole.findings]);
      expect([...inTurns.repeats]).toEqual([...whole.repeats]);
    }
  });

  it('names a vulnerability without an id', () => {
    const broken = { SchemaVersion: 2, Results: [{ Target: 'x', Vulnerabilities: [{ PkgName: 'a' }] }] };
    expect(parseError(broken)).toBe('Results[0].Vulnerabilities[0].VulnerabilityID is missing');
  });
});

describe('Grype JSON', () => {
  it('reads matches with their artifact, the CVSS score and Grype severity words', () => {
    const grype = analysisOf(readFileSync(path.join(FIXTURES, 'grype-0.74-log4j.json'), 'utf8'));
    expect(grype.tool).toEqual({ name: 'Grype', version: '0.74.0' });
    expect(grype.findings.map((f) => [f.ruleId, f.severity, f.level, f.securitySeverity])).toEqual([
      ['GHSA-jfh8-c2jp-5v3q', 'critical', 'Critical', 10],
      ['CVE-2005-2541', 'info', 'Negligible', 10],
      ['CVE-2023-0001', 'medium', 'Unknown', null],
    ]);
    expect(grype.findings[0]).toMatchObject({
      message: 'Remote code injection in Log4j',
      packageName: 'log4j-core',
      packageVersion: '2.14.1',
      purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      fingerprint: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      filePath: '/app/lib/log4j-core-2.14.1.jar',
      helpUri: 'https://github.com/advisories/GHSA-jfh8-c2jp-5v3q',
    });
    // No description of its own: the related NVD record's.
    expect(grype.findings[1]?.message).toContain('Tar 1.15.1');
    expect(grype.findings[2]).toMatchObject({ purl: null, fingerprint: 'example@1.0.0', message: 'CVE-2023-0001' });
  });
});

describe('Semgrep JSON', () => {
  const result = (fingerprint: string, severity: string) => ({
    check_id: 'python.lang.security.audit.eval-detected',
    path: 'app/main.py',
    start: { line: 10, col: 5, offset: 100 },
    end: { line: 12, col: 1, offset: 140 },
    extra: { message: 'Detected eval', severity, fingerprint, metadata: { shortlink: 'https://sg.run/x' }, lines: 'requires login' },
  });

  it('maps Semgrep severities and treats the "requires login" placeholder as no fingerprint', () => {
    const semgrep = analysisOf({
      version: '1.60.0',
      errors: [],
      paths: { scanned: ['app/main.py'] },
      results: [result('requires login', 'ERROR'), result('0123abcd', 'WARNING'), result('x', 'INFO'), result('y', 'CRITICAL')],
    });
    expect(semgrep.tool).toEqual({ name: 'Semgrep', version: '1.60.0' });
    expect(semgrep.findings.map((f) => [f.severity, f.fingerprint])).toEqual([
      ['high', null],
      ['medium', '0123abcd'],
      ['low', 'x'],
      ['critical', 'y'],
    ]);
    expect(semgrep.findings[0]).toMatchObject({
      ruleId: 'python.lang.security.audit.eval-detected',
      message: 'Detected eval',
      filePath: 'app/main.py',
      startLine: 10,
      endLine: 12,
      helpUri: 'https://sg.run/x',
    });
  });

  it('keeps a Semgrep run without results as a clean scan', () => {
    expect(analysisOf({ results: [], errors: [], paths: { scanned: [] }, version: '1.60.0' }).findings).toEqual([]);
  });
});

describe('Gitleaks JSON', () => {
  it('reads leaks and never copies the secret, the match or the commit message', () => {
    const source = readFileSync(path.join(FIXTURES, 'gitleaks-8.18.json'), 'utf8');
    const gitleaks = analysisOf(source);
    expect(gitleaks.tool.name).toBe('Gitleaks');
    expect(gitleaks.findings.map((f) => [f.ruleId, f.severity, f.filePath, f.startLine, f.endLine])).toEqual([
      ['aws-access-token', 'high', 'config/settings.py', 12, 12],
      ['generic-api-key', 'high', 'deploy/values.yaml', 3, 4],
    ]);
    expect(gitleaks.findings[0]?.fingerprint).toBe(
      'b1e6cba6a4f6e1c7a3c1d1f6e3b8d2a4c5e6f7a8:config/settings.py:aws-access-token',
    );
    expect(gitleaks.findings[1]?.message).toBe('Secret found by rule generic-api-key');
    // The commit a secret was found in is kept; a directory scan names none ("").
    expect(gitleaks.findings.map((f) => f.commitSha)).toEqual(['b1e6cba6a4f6e1c7a3c1d1f6e3b8d2a4c5e6f7a8', null]);
    const output = JSON.stringify(gitleaks);
    for (const leak of JSON.parse(source) as { Secret: string; Match: string }[]) {
      expect(output).not.toContain(leak.Secret);
      expect(output).not.toContain(leak.Match);
    }
    expect(output).not.toContain('add settings');
  });

  it('keeps a secret that moved within its file as the same finding (its Fingerprint names the line)', () => {
    const leaks = JSON.parse(readFileSync(path.join(FIXTURES, 'gitleaks-8.18.json'), 'utf8')) as Record<string, unknown>[];
    const moved = leaks.map((leak) => {
      const by = 7;
      const startLine = Number(leak.StartLine) + by;
      const fingerprint = String(leak.Fingerprint).replace(/:\d+$/, `:${startLine}`);
      return { ...leak, StartLine: startLine, EndLine: Number(leak.EndLine) + by, Fingerprint: fingerprint };
    });
    const before = fingerprintAll(analysisOf(JSON.stringify(leaks)).findings);
    const after = analysisOf(JSON.stringify(moved));
    expect(after.findings[0]?.startLine).toBe(19);
    expect(fingerprintAll(after.findings)).toEqual(before);
  });

  it('reads an empty report as a clean scan, and refuses other arrays', () => {
    expect(analysisOf('[]').findings).toEqual([]);
    expect(parseError([{ rule: 'old gitleaks 7' }])).toContain('not a Gitleaks report');
  });
});

describe('npm audit JSON', () => {
  it('reads v2 advisories from via objects, not the dependency names that lead to them', () => {
    const audit = analysisOf({
      auditReportVersion: 2,
      vulnerabilities: {
        minimist: {
          name: 'minimist',
          severity: 'critical',
          via: [
            {
              source: 1097678,
              name: 'minimist',
              dependency: 'minimist',
              title: 'Prototype Pollution in minimist',
              url: 'https://github.com/advisories/GHSA-xvch-5gv4-984h',
              severity: 'critical',
              cvss: { score: 9.8, vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
              range: '<0.2.4',
            },
            { source: 1, name: 'minimist', title: 'Old advisory', url: 'https://npmjs.com/advisories/1', severity: 'moderate', cvss: { score: 0 } },
          ],
        },
        mkdirp: { name: 'mkdirp', severity: 'critical', via: ['minimist'] },
      },
    });
    expect(audit.findings.map((f) => [f.ruleId, f.severity, f.packageName, f.securitySeverity])).toEqual([
      ['GHSA-xvch-5gv4-984h', 'critical', 'minimist', 9.8],
      ['npm-1', 'medium', 'minimist', null],
    ]);
    expect(audit.findings[0]).toMatchObject({ message: 'Prototype Pollution in minimist', fingerprint: 'minimist' });
  });

  it('reads v1 advisories, one finding per vulnerable version', () => {
    const audit = analysisOf({
      actions: [],
      muted: [],
      advisories: {
        '1179': {
          id: 1179,
          title: 'Prototype Pollution',
          module_name: 'minimist',
          severity: 'low',
          url: 'https://npmjs.com/advisories/1179',
          github_advisory_id: 'GHSA-vh95-rmgr-6w4m',
          findings: [{ version: '0.0.8', paths: ['mkdirp>minimist'] }, { version: '1.2.0', paths: ['minimist'] }],
        },
      },
    });
    expect(audit.findings.map((f) => [f.ruleId, f.severity, f.packageVersion, f.fingerprint])).toEqual([
      ['GHSA-vh95-rmgr-6w4m', 'low', '0.0.8', 'minimist@0.0.8'],
      ['GHSA-vh95-rmgr-6w4m', 'low', '1.2.0', 'minimist@1.2.0'],
    ]);
  });
});

describe('OSV-Scanner JSON', () => {
  it('rates from the group max_severity or the database severity, and counts aliases once', () => {
    const osv = analysisOf({
      results: [
        {
          source: { path: '/src/go.mod', type: 'lockfile' },
          packages: [
            {
              package: { name: 'golang.org/x/net', version: '0.7.0', ecosystem: 'Go' },
              vulnerabilities: [
                { id: 'GO-2023-1988', summary: 'Improper rendering of text nodes' },
                { id: 'GHSA-2wrh-6pvc-2jm9', summary: 'Same issue', aliases: ['CVE-2023-3978'] },
                { id: 'GHSA-4374-p667-p6c8', summary: 'HTTP/2 rapid reset', database_specific: { severity: 'HIGH' } },
              ],
              groups: [{ ids: ['GO-2023-1988', 'GHSA-2wrh-6pvc-2jm9'], aliases: ['CVE-2023-3978'], max_severity: '6.1' }],
            },
          ],
        },
      ],
    });
    expect(osv.findings.map((f) => [f.ruleId, f.severity, f.securitySeverity])).toEqual([
      ['GO-2023-1988', 'medium', 6.1],
      ['GHSA-4374-p667-p6c8', 'high', null],
    ]);
    expect(osv.findings[0]).toMatchObject({
      filePath: '/src/go.mod',
      packageName: 'golang.org/x/net',
      fingerprint: 'golang.org/x/net@0.7.0',
      helpUri: 'https://osv.dev/vulnerability/GO-2023-1988',
    });
  });
});

describe('scanyard-findings/1', () => {
  const valid = {
    schema: 'scanyard-findings/1',
    tool: { name: 'house-linter', version: '3.2.1' },
    findings: [
      {
        rule_id: 'no-secrets-in-env',
        title: 'Secrets in .env',
        message: 'A secret is committed in .env',
        severity: 'high',
        file: '.env',
        start_line: 3,
        fingerprint: 'env:API_TOKEN',
        help_uri: 'https://example.com/rules/no-secrets-in-env',
      },
      { rule_id: 'dep-check', message: 'old lodash', severity: 'low', package: { name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' } },
    ],
  };

  it('reads a valid document', () => {
    const generic = analysisOf(valid);
    expect(generic.tool).toEqual({ name: 'house-linter', version: '3.2.1' });
    expect(generic.findings[0]).toEqual({
      ruleId: 'no-secrets-in-env',
      ruleName: 'Secrets in .env',
      message: 'A secret is committed in .env',
      severity: 'high',
      level: null,
      kind: null,
      filePath: '.env',
      startLine: 3,
      endLine: 3,
      fingerprint: 'env:API_TOKEN',
      packageName: null,
      packageVersion: null,
      purl: null,
      securitySeverity: null,
      helpUri: 'https://example.com/rules/no-secrets-in-env',
      commitSha: null,
      help: null,
      locations: null,
      snippet: null,
      suppression: null,
    });
    expect(generic.findings[1]).toMatchObject({ packageName: 'lodash', packageVersion: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' });
  });

  it('names the path of every fault', () => {
    const message = parseError({
      ...valid,
      findings: [
        { rule_id: 'a', message: 'm', severity: 'severe' },
        { rule_id: '', message: 'm', severity: 'low', start_line: 0 },
        { rule_id: 'b', severity: 'low', colour: 'red' },
      ],
    });
    expect(message).toContain('/findings/0/severity: must be one of critical, high, medium, low, info');
    expect(message).toContain('/findings/1/rule_id');
    expect(message).toContain('/findings/1/start_line');
    expect(message).toContain('/findings/2: missing message');
    expect(message).toContain('/findings/2: unknown property colour');
  });

  it('refuses an end line before the start line, and another schema version', () => {
    expect(parseError({ ...valid, findings: [{ rule_id: 'a', message: 'm', severity: 'low', start_line: 5, end_line: 2 }] })).toContain(
      '/findings/0/end_line is before start_line',
    );
    expect(parseError({ ...valid, schema: 'scanyard-findings/2' })).toContain('this server reads scanyard-findings/1');
    expect(parseError({ schema: 'scanyard-findings/1', findings: [] })).toContain('(document): missing tool');
  });

  it('documents every property of the published schema', () => {
    const undocumented: string[] = [];
    const visit = (schema: Record<string, unknown>, at: string): void => {
      if (typeof schema.description !== 'string' || schema.description === '') undocumented.push(at);
      const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
      for (const [name, property] of Object.entries(properties ?? {})) visit(property, `${at}.${name}`);
      if (schema.items) visit(schema.items as Record<string, unknown>, `${at}[]`);
    };
    visit(GenericFindingsSchema as unknown as Record<string, unknown>, 'root');
    expect(undocumented).toEqual([]);
    expect(Value.Check(GenericFindingsSchema, valid)).toBe(true);
  });
});

describe('findings report shapes', () => {
  it('refuses an unknown shape, listing the supported ones', () => {
    const message = parseError({ issues: [] });
    expect(message).toContain('unknown shape');
    for (const name of ['scanyard-findings/1', 'Trivy', 'Grype', 'Semgrep', 'Gitleaks', 'npm audit', 'OSV-Scanner']) {
      expect(message).toContain(name);
    }
    expect(parseError('just a string')).toContain('a string');
  });
});

describe('the lists of what a report found', () => {
  const real = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const CORPUS = path.resolve(import.meta.dirname, '../fixtures/corpus/findings');
  const trivy = real(path.join(CORPUS, 'trivy-image-alpine-39-high-critical.json'));
  const osv = real(path.join(CORPUS, 'osv-scanner-malicious-npm.json'));
  const npmAudit = real(path.join(CORPUS, 'npm-audit-v2-npm7-low.json'));
  const semgrep = real(path.join(CORPUS, 'semgrep-1.30.0.json'));
  const grype = real(path.join(FIXTURES, 'grype-0.74-log4j.json'));
  const first = (value: unknown) => (value as Record<string, unknown>[])[0]!;

  // Read as absent, a broken list would mark every finding of the tool's last upload fixed.
  it.each([
    ['Trivy Results', { ...trivy, Results: 'none' }, 'Results must be an array, not a string'],
    ['a Trivy target\'s Vulnerabilities', { ...trivy, Results: [{ ...first(trivy.Results), Vulnerabilities: { CVE: 1 } }] }, 'Results[0].Vulnerabilities must be an array, not an object'],
    ['a Trivy vulnerability', { ...trivy, Results: [{ ...first(trivy.Results), Vulnerabilities: ['CVE-2019-14697'] }] }, 'Results[0].Vulnerabilities[0] must be an object, not a string'],
    ['OSV-Scanner results', { ...osv, results: [5, first(osv.results)] }, 'results[0] must be an object, not a number'],
    ['OSV-Scanner packages', { ...osv, results: [{ ...first(osv.results), packages: {} }] }, 'results[0].packages must be an array, not an object'],
    ['OSV-Scanner vulnerabilities', { ...osv, results: [{ ...first(osv.results), packages: [{ ...first(first(osv.results).packages), vulnerabilities: [null] }] }] }, 'results[0].packages[0].vulnerabilities[0] must be an object, not null'],
    ['Grype matches', { ...grype, matches: {} }, 'matches must be an array, not an object'],
    ['Semgrep results', { ...semgrep, results: 'x' }, 'results must be an array, not a string'],
    ['npm audit vulnerabilities', { ...npmAudit, vulnerabilities: [] }, 'vulnerabilities must be an object, not an array'],
    ['an npm audit package', { ...npmAudit, vulnerabilities: { lodash: true } }, 'vulnerabilities.lodash must be an object, not a boolean'],
  ])('refuses %s of the wrong type, naming it', (_, report, message) => {
    expect(parseError(report)).toContain(message);
  });

  it('reads a list the scanner left out as nothing found', () => {
    expect(analysisOf({ ...trivy, Results: undefined }).findings).toEqual([]);
    expect(analysisOf({ ...osv, results: [{ ...first(osv.results), packages: [] }] }).findings).toEqual([]);
    expect(analysisOf({ ...npmAudit, vulnerabilities: {} }).findings).toEqual([]);
  });
});
