import { describe, expect, it } from 'vitest';
import { defaultBranch, parseRef, refKey, RefNameError, type RefName } from '../../src/domain/ref-name.js';

describe('parseRef', () => {
  it.each([
    ['refs/heads/main', { kind: 'branch', name: 'main' }],
    ['refs/heads/feature/login-form', { kind: 'branch', name: 'feature/login-form' }],
    ['main', { kind: 'branch', name: 'main' }],
    ['release/2.x', { kind: 'branch', name: 'release/2.x' }],
    ['refs/pull/42/merge', { kind: 'pull_request', name: 'pr/42' }],
    ['refs/pull/42/head', { kind: 'pull_request', name: 'pr/42' }],
    ['refs/merge-requests/7/head', { kind: 'pull_request', name: 'pr/7' }],
    ['refs/merge-requests/7/merge', { kind: 'pull_request', name: 'pr/7' }],
    ['pr/42', { kind: 'pull_request', name: 'pr/42' }],
    ['refs/pull/042/merge', { kind: 'pull_request', name: 'pr/42' }],
    ['refs/tags/v1', { kind: 'tag', name: 'v1' }],
    ['refs/tags/release/1.2.3', { kind: 'tag', name: 'release/1.2.3' }],
  ] as const)('reads %s', (raw, expected) => {
    expect(parseRef(raw)).toEqual(expected);
  });

  it.each([
    '', 'refs/heads/', 'refs/tags/', 'refs/pull/42', 'refs/pull/0/merge', 'refs/pull/x/merge', 'refs/remotes/origin/main',
    'refs/notes/commits', 'has space', 'a..b', 'a~1', 'x^', 'a:b', 'what?', 'star*', 'br[ack', 'back\\slash', 'at@{1}',
    'double//slash', '/leading', 'trailing/', 'dot.', '.hidden', 'dir/.hidden', 'x.lock', 'nul\u0000', 'tab\t', 'del\u007f',
    'refs/pull/99999999999999999999/merge',
    // git refuses these as branch names too; bidi controls and invisible names would pass for another ref on screen.
    '-leading-dash', '@', 'rtl\u202Eniam', 'iso\u2066late', '\u200B', 'lone\uD800',
    'ma\u200Bin', 'ma\u200Din', 'ma\u00ADin', 'ma\u2060in', 'main\uFE0F', 'feature/👩\u200D💻',
  ])('refuses %j', (raw) => {
    expect(() => parseRef(raw)).toThrow(RefNameError);
  });

  it('tells a detached checkout apart from a branch', () => {
    for (const raw of ['HEAD', 'refs/heads/HEAD']) expect(() => parseRef(raw)).toThrow(/names no branch \(a detached checkout\)/);
    expect(parseRef('feature/HEAD')).toEqual({ kind: 'branch', name: 'feature/HEAD' });
    expect(parseRef('café')).toEqual({ kind: 'branch', name: 'café' });
  });
});

describe('refKey', () => {
  it.each<[RefName, string]>([
    [{ kind: 'branch', name: 'main' }, 'main'],
    [{ kind: 'branch', name: 'feature/x' }, 'feature/x'],
    [{ kind: 'pull_request', name: 'pr/42' }, 'pr/42'],
    [{ kind: 'tag', name: 'v1' }, 'refs/tags/v1'],
    // Branches whose bare name would read as another ref are spelled out.
    [{ kind: 'branch', name: 'pr/42' }, 'refs/heads/pr/42'],
    [{ kind: 'branch', name: 'refs/odd' }, 'refs/heads/refs/odd'],
  ])('names %j as %s, which reads back as the same ref', (ref, key) => {
    expect(refKey(ref)).toBe(key);
    expect(parseRef(key)).toEqual(ref);
  });
});

describe('defaultBranch', () => {
  it('is the configured branch in any spelling, else main', () => {
    expect(defaultBranch('develop')).toEqual({ kind: 'branch', name: 'develop' });
    expect(defaultBranch('refs/heads/trunk')).toEqual({ kind: 'branch', name: 'trunk' });
    expect(defaultBranch(null)).toEqual({ kind: 'branch', name: 'main' });
    expect(defaultBranch('refs/tags/v1')).toEqual({ kind: 'branch', name: 'main' });
    expect(defaultBranch('not a branch')).toEqual({ kind: 'branch', name: 'main' });
  });
});
