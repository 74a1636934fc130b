import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/scans/detect.js';
import { parseScan } from '../../src/scans/parsers/index.js';
import { SCAN_FORMATS } from '../../src/domain/scan.js';
import { ParseError } from '../../src/scans/parsers/types.js';
import { CORPUS } from '../support/corpus.js';


function parseError(run: () => unknown): ParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof ParseError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseScan: malformed input is a ParseError', () => {
  it('says where invalid JSON breaks', () => {
    const body = Buffer.from('{\n  "version": "2.1.0",\n  "runs": [}\n');
    const error = parseError(() => parseScan(body, 'sarif', 'json'));
    expect(error.message).toMatch(/^The SARIF log is not valid JSON: .*\(line 3, column 12\)$/);
  });

  it.each(SCAN_FORMATS)('refuses truncated JSON for %s', (format) => {
    const error = parseError(() => parseScan(Buffer.from('{"runs": [{"tool": '), format, 'json'));
    expect(error.message).toContain('not valid JSON');
  });

  it('refuses a format in a syntax it is never written in', () => {
    expect(parseError(() => parseScan(Buffer.from('<bom/>'), 'sarif', 'xml')).message).toBe(
      'A SARIF log cannot be written as xml',
    );
  });

  it.each([
    ['sarif', 'null'],
    ['sarif', '"2.1.0"'],
    ['sarif', '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":42}}}]}'],
    ['sarif', '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":{"a":1}}},"results":[{"ruleIndex":"0","locations":"here","message":[]}]}]}'],
    ['cyclonedx', '[]'],
    ['cyclonedx', '{"bomFormat":"CycloneDX","components":[{"name":["a"]}]}'],
    ['cyclonedx', '{"bomFormat":"CycloneDX","vulnerabilities":{"id":"x"}}'],
    ['spdx', '{"spdxVersion":"SPDX-2.3","packages":[null]}'],
    ['findings', '{"SchemaVersion":2,"Results":[{"Vulnerabilities":[{"VulnerabilityID":7,"CVSS":[]}]}]}'],
    ['findings', '{"matches":[{"vulnerability":"CVE-1"}]}'],
    ['findings', '{"results":[{"check_id":null}]}'],
    ['findings', '{"schema":"scanyard-findings/1","tool":{"name":"x"},"findings":"none"}'],
  ] as const)('%s: %s', (format, source) => {
    let outcome: unknown;
    try {
      outcome = parseScan(Buffer.from(source), format, 'json');
    } catch (error) {
      outcome = error;
    }
    // Either it reads something sensible or it says why not; never a TypeError.
    if (outcome instanceof Error) {
      expect(outcome).toBeInstanceOf(ParseError);
      expect(outcome.message.length).toBeGreaterThan(10);
    } else {
      expect(outcome).toHaveProperty('analyses');
    }
  });
});

/** A small deterministic generator, so that a failure can be reproduced. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ODD_VALUES: unknown[] = [null, 0, -1, 1.5, '', 'x', true, [], {}, [null], { length: 3 }, '__proto__'];

/** Replaces a few values anywhere in the document with values of the wrong type. */
function mutate(doc: unknown, next: () => number, rate: number): unknown {
  if (next() < rate) return ODD_VALUES[Math.floor(next() * ODD_VALUES.length)];
  if (Array.isArray(doc)) return doc.map((item) => mutate(item, next, rate));
  if (doc !== null && typeof doc === 'object') {
    return Object.fromEntries(Object.entries(doc).map(([key, value]) => [key, mutate(value, next, rate)]));
  }
  return doc;
}

describe('parseScan: corpus files with values of the wrong type', () => {
  const files = readdirSync(CORPUS)
    .filter((dir) => !dir.includes('.'))
    .flatMap((dir) => readdirSync(path.join(CORPUS, dir)).map((file) => path.join(CORPUS, dir, file)))
    .filter((file) => file.endsWith('.json') || file.endsWith('.sarif'));

  it.each(files.map((file) => [path.relative(CORPUS, file), file]))('%s never throws anything but a ParseError', (_name, file) => {
    const body = readFileSync(file);
    const { format, syntax } = detectFormat(body, {});
    const doc: unknown = JSON.parse(body.toString('utf8'));
    const next = random(file.length);
    for (let round = 0; round < 60; round++) {
      const mutated = Buffer.from(JSON.stringify(mutate(doc, next, 0.05)));
      try {
        parseScan(mutated, format, syntax);
      } catch (error) {
        if (!(error instanceof ParseError)) throw error;
        // Not the safety net in parseScan: each parser names the fault itself.
        expect(error.message).not.toContain('could not be read');
      }
    }
  });
});
