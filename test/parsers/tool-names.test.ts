import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/scans/detect.js';
import { parseScan } from '../../src/scans/parsers/index.js';
import { canonicalToolName } from '../../src/scans/parsers/tool-name.js';
import { CORPUS } from '../support/corpus.js';
import { sarifLog } from '../support/sarif.js';

const parseFile = (file: string) => {
  const body = readFileSync(path.join(CORPUS, file));
  const { format, syntax } = detectFormat(body, {});
  return parseScan(body, format, syntax);
};
const toolOf = (file: string) => parseFile(file).analyses.map((a) => a.tool.name);

describe('one name per tool, whatever its output calls itself', () => {
  it('names Trivy "Trivy" in its SARIF, its own JSON, its CycloneDX and its SPDX alike', () => {
    // The files say "Trivy" (SARIF, JSON) and "trivy" (CycloneDX, SPDX).
    expect(readFileSync(path.join(CORPUS, 'cyclonedx/trivy-conda-1.6.cdx.json'), 'utf8')).toContain('"name": "trivy"');
    for (const file of ['sarif/trivy-image-alpine-310.sarif', 'findings/trivy-image-alpine-39-high-critical.json',
      'cyclonedx/trivy-conda-1.6.cdx.json', 'spdx/trivy-conda-environment-2.3.spdx.json']) {
      expect(toolOf(file), file).toEqual(['Trivy']);
    }
  });

  it('names Semgrep "Semgrep" in its SARIF ("Semgrep OSS") and its own JSON', () => {
    expect(readFileSync(path.join(CORPUS, 'sarif/semgrep-dataflow-traces.sarif'), 'utf8')).toContain('Semgrep OSS');
    expect(toolOf('sarif/semgrep-dataflow-traces.sarif')).toEqual(['Semgrep']);
    expect(toolOf('sarif/semgrep-1.66.2-no-results.sarif')).toEqual(['Semgrep']);
    expect(toolOf('findings/semgrep-1.30.0.json')).toEqual(['Semgrep']);
  });

  it('gives runs of one tool under two spellings one analysis', () => {
    const runs = [JSON.parse(sarifLog([{ rule: 'a', file: 'x.js' }], 'Semgrep OSS')).runs[0], JSON.parse(sarifLog([{ rule: 'b', file: 'y.js' }], 'semgrep')).runs[0]];
    const scan = parseScan(Buffer.from(JSON.stringify({ version: '2.1.0', runs })), 'sarif', 'json');
    expect(scan.analyses.map((a) => [a.tool.name, a.findings.length])).toEqual([['Semgrep', 2]]);
  });

  it('keeps the spelling of tools it does not know, and never reads a name as an object key', () => {
    expect(canonicalToolName(' CodeQL command-line toolchain ')).toBe('CodeQL command-line toolchain');
    expect(canonicalToolName('constructor')).toBe('constructor');
    expect(canonicalToolName('__proto__')).toBe('__proto__');
  });
});

describe('Snyk rule titles', () => {
  it('drop the severity word Snyk puts in front, which the finding carries as its severity', () => {
    expect(readFileSync(path.join(CORPUS, 'sarif/snyk-open-source-all-projects.sarif'), 'utf8')).toContain('"High severity - Command Injection vulnerability in lodash"');
    const findings = parseFile('sarif/snyk-open-source-all-projects.sarif').analyses.flatMap((a) => a.findings);
    const byRule = new Map(findings.map((f) => [f.ruleId, f]));
    expect(byRule.get('SNYK-JS-LODASH-1040724')).toMatchObject({ ruleName: 'Command Injection vulnerability in lodash', severity: 'high' });
    expect(byRule.get('SNYK-JS-LODASH-1018905')).toMatchObject({ ruleName: 'Regular Expression Denial of Service (ReDoS) vulnerability in lodash', severity: 'medium' });
    expect(findings.every((f) => !/severity -/i.test(f.ruleName ?? ''))).toBe(true);
  });

  it('keep a title that only mentions a severity elsewhere', () => {
    const log = JSON.parse(sarifLog([{ rule: 'r', file: 'a.js' }]));
    log.runs[0].tool.driver.rules[0].shortDescription.text = 'Low severity findings are hidden by default';
    const [finding] = parseScan(Buffer.from(JSON.stringify(log)), 'sarif', 'json').analyses[0]!.findings;
    expect(finding!.ruleName).toBe('Low severity findings are hidden by default');
  });
});
