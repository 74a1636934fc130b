import { describe, expect, it } from 'vitest';
import { suppressionMatcher, type SuppressionCriteria } from '../../src/suppressions/match.js';

const none: SuppressionCriteria = { tool: null, rule_id: null, path: null, purl: null, advisory: null, repository_ids: null };
const finding = { repository_id: 'r1', tool: 'Trivy', rule_id: 'CVE-2021-23337', file_path: 'package-lock.json', purl: 'pkg:npm/lodash@4.17.20' };

describe('suppression rules', () => {
  it.each([
    [{ tool: 'trivy' }, true],
    [{ tool: 'Grype' }, false],
    [{ advisory: 'cve-2021-23337' }, true],
    [{ purl: 'pkg:npm/lodash' }, true],
    [{ purl: 'pkg:npm/lodash@4.17.20' }, true],
    [{ purl: 'pkg:npm/lodash@4.17.21' }, false],
    [{ purl: 'pkg:npm/lod' }, false],
    [{ purl: 'pkg:npm/' }, true],
    [{ path: '*.json' }, true],
    [{ path: 'test/**' }, false],
    [{ tool: 'Trivy', path: 'test/**' }, false],
    [{ repository_ids: JSON.stringify(['r2']) }, false],
    [{ repository_ids: JSON.stringify(['r1']), tool: 'Trivy' }, true],
  ] as const)('%j matches: %s', (criteria, expected) => {
    expect(suppressionMatcher({ ...none, ...criteria })(finding)).toBe(expected);
  });

  it('globs paths with dotfiles, without a leading ./, and never matches a finding without a path', () => {
    const matches = suppressionMatcher({ ...none, path: 'test/**' });
    expect(matches({ ...finding, file_path: './test/.fixtures/a.js' })).toBe(true);
    expect(matches({ ...finding, file_path: 'src/test/a.js' })).toBe(false);
    expect(matches({ ...finding, file_path: null })).toBe(false);
  });
});
