import { describe, expect, it } from 'vitest';
import { parseScan } from '../../src/scans/parsers/index.js';
import { NO_RULE } from '../../src/scans/parsers/sarif.js';
import { type NormalisedScan } from '../../src/domain/scan.js';
import { ParseError } from '../../src/scans/parsers/types.js';

type Json = Record<string, unknown>;

function parse(log: unknown): NormalisedScan {
  return parseScan(Buffer.from(JSON.stringify(log)), 'sarif', 'json');
}

function log(run: Json, more: Json = {}): Json {
  return { version: '2.1.0', runs: [{ tool: { driver: { name: 'tool', version: '1.0' } }, ...run }], ...more };
}

function findings(run: Json) {
  const [analysis] = parse(log(run)).analyses;
  return analysis?.findings ?? [];
}

function parseError(body: unknown): string {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return (error as Error).message;
  }
  throw new Error('the log was accepted');
}

const location = (uri: string, startLine?: number) => ({
  physicalLocation: { artifactLocation: { uri }, ...(startLine ? { region: { startLine } } : {}) },
});

describe('SARIF: what is refused', () => {
  it('refuses SARIF 1.0 with the version it is', () => {
    expect(parseError({ version: '1.0.0', runs: [] })).toBe('SARIF 1.0.0 is not supported; upload SARIF 2.1.0');
  });

  it('refuses a log without runs, or with no run', () => {
    expect(parseError({ version: '2.1.0' })).toBe('The SARIF log has no "runs" array');
    expect(parseError({ version: '2.1.0', runs: {} })).toBe('The SARIF log has no "runs" array');
    expect(parseError({ version: '2.1.0', runs: [] })).toContain('no runs');
  });

  it('refuses a run without a tool name, and results that are not objects', () => {
    expect(parseError({ version: '2.1.0', runs: [{ results: [] }] })).toBe('runs[0].tool.driver.name is missing');
    expect(parseError(log({ results: [null] }))).toBe('runs[0].results[0] must be an object, not null');
    expect(parseError(log({ results: 'none' }))).toContain('runs[0].results must be an array');
  });

  it('refuses a log that is not an object, and a missing version without a 2.1.0 schema', () => {
    expect(parseError([1, 2])).toContain('must be a JSON object');
    expect(parseError({ runs: [] })).toContain('no "version"');
  });

  it('accepts a log without version whose $schema is 2.1.0', () => {
    const body = { $schema: 'https://json.schemastore.org/sarif-2.1.0.json', runs: log({}).runs };
    expect(parse(body).analyses).toHaveLength(1);
  });
});

describe('SARIF: results', () => {
  it('keeps a result without locations, without file or lines', () => {
    expect(findings({ results: [{ ruleId: 'r', message: { text: 'm' } }] })[0]).toMatchObject({
      ruleId: 'r',
      message: 'm',
      filePath: null,
      startLine: null,
      endLine: null,
      fingerprint: null,
    });
  });

  it('looks up message.id in the rule messageStrings and fills in its arguments', () => {
    const [finding] = findings({
      tool: {
        driver: {
          name: 'tool',
          rules: [
            {
              id: 'R1',
              messageStrings: { default: { text: "Variable '{0}' is unused in {1} ({{ literal }})." } },
            },
          ],
        },
      },
      results: [{ ruleId: 'R1', message: { id: 'default', arguments: ['count', 'main'] } }],
    });
    expect(finding?.message).toBe("Variable 'count' is unused in main ({ literal }).");
  });

  it('falls back to the driver global message strings', () => {
    const [finding] = findings({
      tool: { driver: { name: 'tool', globalMessageStrings: { shared: { text: 'Shared {0}' } } } },
      results: [{ ruleId: 'R1', message: { id: 'shared', arguments: ['text'] } }],
    });
    expect(finding?.message).toBe('Shared text');
  });

  it('resolves ruleIndex and result.rule when ruleId is missing, also into extensions', () => {
    const run = {
      tool: {
        driver: { name: 'tool', rules: [{ id: 'driver-0' }, { id: 'driver-1', helpUri: 'https://d/1' }] },
        extensions: [{ name: 'pack', rules: [{ id: 'ext-0', shortDescription: { text: 'From a pack' } }] }],
      },
      results: [
        { ruleIndex: 1, message: { text: 'a' } },
        { rule: { index: 0, toolComponent: { index: 0 } }, message: { text: 'b' } },
        { rule: { id: 'ext-0' }, message: { text: 'c' } },
        { message: { text: 'd' } },
      ],
    };
    const [a, b, c, d] = findings(run);
    expect(a).toMatchObject({ ruleId: 'driver-1', helpUri: 'https://d/1' });
    expect(b).toMatchObject({ ruleId: 'ext-0', ruleName: 'From a pack' });
    expect(c).toMatchObject({ ruleId: 'ext-0', ruleName: 'From a pack' });
    expect(d?.ruleId).toBe(NO_RULE);
  });

  it('follows the SARIF level defaults: result, then rule, then warning; none for non-failures', () => {
    const run = {
      tool: { driver: { name: 'tool', rules: [{ id: 'loud', defaultConfiguration: { level: 'error' } }, { id: 'plain' }] } },
      results: [
        { ruleId: 'loud', message: { text: 'rule default' } },
        { ruleId: 'loud', level: 'note', message: { text: 'result wins' } },
        { ruleId: 'plain', message: { text: 'spec default' } },
        { ruleId: 'loud', kind: 'open', message: { text: 'open' } },
        { ruleId: 'plain', level: 'none', message: { text: 'none' } },
      ],
    };
    expect(findings(run).map((f) => [f.level, f.severity])).toEqual([
      ['error', 'high'],
      ['note', 'low'],
      ['warning', 'medium'],
      ['none', 'info'],
      ['none', 'info'],
    ]);
  });

  it('rates from security-severity, of the result or of the rule, string or number', () => {
    const run = {
      tool: {
        driver: { name: 'tool', rules: [{ id: 'cve', properties: { 'security-severity': '9.8' } }] },
      },
      results: [
        { ruleId: 'cve', level: 'note', message: { text: 'rule says 9.8' } },
        { ruleId: 'cve', properties: { 'security-severity': 9.0 }, message: { text: 'exactly 9' } },
        { ruleId: 'x', properties: { 'security-severity': '7.0' }, message: { text: '7' } },
        { ruleId: 'x', properties: { 'security-severity': 4 }, message: { text: '4' } },
        { ruleId: 'x', properties: { 'security-severity': '0.1' }, message: { text: '0.1' } },
        { ruleId: 'x', properties: { 'security-severity': 0 }, message: { text: '0' } },
        { ruleId: 'x', level: 'error', properties: { 'security-severity': 'high' }, message: { text: 'junk' } },
      ],
    };
    expect(findings(run).map((f) => [f.severity, f.securitySeverity])).toEqual([
      ['critical', 9.8],
      ['high', 9],
      ['high', 7],
      ['medium', 4],
      ['low', 0.1],
      ['info', 0],
      ['high', null],
    ]);
  });

  it('drops results that report success: pass, notApplicable, informational', () => {
    const results = ['fail', 'pass', 'open', 'notApplicable', 'review', 'informational'].map((kind) => ({
      ruleId: 'r',
      kind,
      message: { text: kind },
    }));
    expect(findings({ results }).map((f) => f.kind)).toEqual(['fail', 'open', 'review']);
  });

  it('resolves the artifact index when the location has no uri, keeping uriBaseId paths relative', () => {
    const [byIndex, withBase, fileUri] = findings({
      artifacts: [{ location: { uri: 'src/a.ts' } }, { location: { uri: 'src/b%20c.ts', uriBaseId: 'SRC' } }],
      results: [
        { ruleId: 'r', message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { index: 1 } } }] },
        {
          ruleId: 'r',
          message: { text: 'm' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'lib/x.js', uriBaseId: '%SRCROOT%' } } }],
        },
        { ruleId: 'r', message: { text: 'm' }, locations: [location('file:///work/repo/main.go')] },
      ],
    });
    expect(byIndex?.filePath).toBe('src/b c.ts');
    expect(withBase?.filePath).toBe('lib/x.js');
    expect(fileUri?.filePath).toBe('/work/repo/main.go');
  });

  it('takes the region lines, endLine defaulting to startLine', () => {
    const [withEnd, withoutEnd] = findings({
      results: [
        {
          ruleId: 'r',
          message: { text: 'm' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'a' }, region: { startLine: 3, endLine: 9 } } }],
        },
        { ruleId: 'r', message: { text: 'm' }, locations: [location('a', 5)] },
      ],
    });
    expect([withEnd?.startLine, withEnd?.endLine]).toEqual([3, 9]);
    expect([withoutEnd?.startLine, withoutEnd?.endLine]).toEqual([5, 5]);
  });

  it('reads no line where the region holds none a file can have (the columns are 32-bit)', () => {
    const region = (startLine: unknown, endLine?: unknown) => ({ ruleId: 'r', message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a' }, region: { startLine, endLine } } }] });
    const read = findings({ results: [region(1e308, -5), region(2 ** 31), region(2 ** 31 - 1), region(0, 4), region(2.5)] });
    expect(read.map((f) => [f.startLine, f.endLine])).toEqual([[null, null], [null, null], [2 ** 31 - 1, 2 ** 31 - 1], [null, 4], [null, null]]);
  });

  it('joins partial fingerprints, else fingerprints, sorted by key', () => {
    const [partial, full, none] = findings({
      results: [
        { ruleId: 'r', message: { text: 'm' }, partialFingerprints: { b: '2', a: '1' }, fingerprints: { z: '9' } },
        { ruleId: 'r', message: { text: 'm' }, fingerprints: { 'matchBasedId/v1': 'abc' } },
        { ruleId: 'r', message: { text: 'm' }, partialFingerprints: {} },
      ],
    });
    expect(partial?.fingerprint).toBe('a=1|b=2');
    expect(full?.fingerprint).toBe('matchBasedId/v1=abc');
    expect(none?.fingerprint).toBeNull();
  });

  it('merges runs of one tool and keeps other tools apart', () => {
    const scan = parse({
      version: '2.1.0',
      runs: [
        { tool: { driver: { name: 'A', semanticVersion: '2.0.0', version: 'ignored' } }, results: [{ ruleId: 'r', message: { text: '1' } }] },
        { tool: { driver: { name: 'B' } }, results: [] },
        { tool: { driver: { name: 'A' } }, results: [{ ruleId: 'r', message: { text: '2' } }] },
      ],
    });
    expect(scan.analyses.map((a) => [a.tool.name, a.tool.version, a.findings.length])).toEqual([
      ['A', '2.0.0', 2],
      ['B', null, 0],
    ]);
  });

  it('reads a log with a byte order mark and CRLF line ends', () => {
    const text = JSON.stringify(log({ results: [{ ruleId: 'r', message: { text: 'm' } }] }), null, 2).replace(/\n/g, '\r\n');
    const scan = parseScan(Buffer.from(`\uFEFF${text}`), 'sarif', 'json');
    expect(scan.analyses[0]?.findings).toHaveLength(1);
  });

  it('gives a ruleId and a message even to a bare result', () => {
    const [finding] = findings({ results: [{}] });
    expect(finding).toMatchObject({ ruleId: NO_RULE, message: NO_RULE, severity: 'medium' });
  });

  it('parses 50,000 results in linear time (a quadratic lookup would take minutes)', () => {
    const rules = Array.from({ length: 200 }, (_, i) => ({ id: `rule-${i}`, properties: { 'security-severity': '5.5' } }));
    const results = Array.from({ length: 50_000 }, (_, i) => ({
      ruleId: `rule-${i % 200}`,
      ruleIndex: i % 200,
      message: { text: `Problem ${i}` },
      locations: [location(`src/file-${i}.ts`, (i % 500) + 1)],
      partialFingerprints: { primaryLocationLineHash: `${i}:1` },
    }));
    const body = Buffer.from(JSON.stringify(log({ tool: { driver: { name: 'big', rules } }, results })));
    const scan = parseScan(body, 'sarif', 'json');
    expect(scan.analyses[0]?.findings).toHaveLength(50_000);
  });
});

describe('SARIF: what a finding page shows, and what the tool suppressed', () => {
  it('keeps suppressions of kind inSource or external whose status is absent or accepted, with the justification', () => {
    const result = (suppressions: unknown) => ({ ruleId: 'r', message: { text: 'm' }, locations: [location('a.js', 1)], suppressions });
    const found = findings({
      results: [
        result([{ kind: 'inSource' }]),
        result([{ kind: 'external', status: 'accepted', justification: 'Risk accepted by security' }]),
        result([{ kind: 'external', status: 'underReview' }]),
        result([{ kind: 'inSource', status: 'rejected' }]),
        result([{ kind: 'somethingElse' }]),
        result([]),
        result('not a list'),
      ],
    });
    expect(found.map((f) => f.suppression)).toEqual(['', 'Risk accepted by security', null, null, null, null, null]);
  });

  it("takes the rule's help as markdown, else its text, else the full description", () => {
    const rules = [
      { id: 'md', help: { text: 'plain', markdown: '**bold**' } },
      { id: 'txt', help: { text: 'plain only' } },
      { id: 'full', fullDescription: { text: 'described in full' } },
      { id: 'none' },
    ];
    const found = parse(log({
      tool: { driver: { name: 'tool', rules } },
      results: rules.map((r) => ({ ruleId: r.id, message: { text: 'm' }, locations: [location('a.js', 1)] })),
    })).analyses[0]!.findings;
    expect(found.map((f) => f.help)).toEqual(['**bold**', 'plain only', 'described in full', null]);
  });

  it('keeps every location when there are several, and the snippet, except a secret scanner\'s (the snippet is the secret)', () => {
    const withSnippet = { physicalLocation: { artifactLocation: { uri: 'a.js' }, region: { startLine: 3, endLine: 4, snippet: { text: 'eval(input)' } } } };
    const results = [{ ruleId: 'r', message: { text: 'm' }, locations: [withSnippet, location('b.js', 9)] }];
    const [found] = findings({ results });
    expect(found).toMatchObject({ snippet: 'eval(input)', locations: [{ path: 'a.js', startLine: 3, endLine: 4 }, { path: 'b.js', startLine: 9, endLine: 9 }] });
    expect(findings({ results: [{ ...results[0], locations: [withSnippet] }] })[0]!.locations).toBeNull();
    const leak = parse(log({ tool: { driver: { name: 'gitleaks' } }, results })).analyses[0]!.findings[0]!;
    expect(leak.snippet).toBeNull();
  });
});
