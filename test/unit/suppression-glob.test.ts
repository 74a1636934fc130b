import { describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import { compileGlob, globProblem } from '../../src/suppressions/glob.js';

const PATTERNS = [
  'test/**', '**/*.spec.ts', '*.json', 'src/*.ts', 'src/**/*.ts', 'src/**', '**', '**/*', '**/test/**', '**/fixtures/*',
  'vendor/**/*.min.js', 'docs/?.md', 'a?c/*', '*/node_modules/**', '.github/**', '**/.env*', '*.lock', '**/*-lock.json',
  'src/**/__snapshots__/**', 'lib/*/index.js', '*test*', '**/*_test.go', 'a/**/b/**/c', 'README.md', './src/*.ts', 'a**b', '**a',
  'build/**/*.map', '**/package.json', '/abs/*.c', 'a+b/*', 'odd$name/**', 'space dir/*', 'café/**',
];
const PATHS = [
  'test/a.js', 'test/.fixtures/a.js', 'test', 'src/test/a.js', 'a.spec.ts', 'src/a.spec.ts', 'src/deep/x/a.spec.ts', 'package.json',
  'package-lock.json', 'src/a.ts', 'src/a/b.ts', 'src/.hidden.ts', 'vendor/jquery.min.js', 'vendor/x/y/jquery.min.js', 'docs/a.md',
  'docs/ab.md', 'abc/x', 'a.c/x', 'web/node_modules/x/y.js', '.github/workflows/ci.yml', '.env', 'config/.env.local', 'yarn.lock',
  'src/__snapshots__/a.snap', 'src/x/__snapshots__/y/z.snap', 'lib/foo/index.js', 'lib/index.js', 'mytests', 'pkg/a_test.go',
  'a/b/c', 'a/x/b/y/c', 'a/c', 'README.md', 'axb', 'xa', 'x/a', 'build/js/app.js.map', 'abs/x.c', '/abs/x.c', 'a+b/c', 'odd$name/x',
  'space dir/x', 'café/x', 'src/../a.ts', 'src/./a.ts',
];

describe('suppression path globs', () => {
  const table = PATTERNS.flatMap((pattern) => PATHS.map((path) => [pattern, path, picomatch(pattern, { dot: true })(path)] as const));

  it.each(PATTERNS)('%s matches what picomatch (dot: true) matched', (pattern) => {
    const matches = compileGlob(pattern);
    const rows = table.filter(([p]) => p === pattern);
    expect(rows.map(([, path]) => [path, matches(path)])).toEqual(rows.map(([, path, expected]) => [path, expected]));
  });

  it('matches in time that grows with the path, not exponentially', () => {
    const started = performance.now();
    expect(compileGlob('*a*a*a*a*a*b')('a'.repeat(100))).toBe(false);
    expect(compileGlob(`*${'a?'.repeat(127)}b`)('a'.repeat(4_096))).toBe(false);
    expect(compileGlob('**/*a*a*a*a*a*b')(`${'a'.repeat(100)}/`.repeat(40).slice(0, -1))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('matches no path over 4,096 characters, and no path at all with a pattern it refuses', () => {
    expect(compileGlob('**')(`${'a/'.repeat(2_048)}b`)).toBe(false);
    expect(compileGlob('**')(`${'a/'.repeat(2_047)}b`)).toBe(true);
    expect(compileGlob('**/*.{ts,js}')('a.ts')).toBe(false);
  });

  it.each([
    ['**/*.{ts,js}', '"{"'], ['src/[ab].ts', '"["'], ['@(a|b)', '"("'], ['!test/**', 'negation'], ['a\\*', '"\\\\"'], ['"a"', '"\\""'],
    ['*'.repeat(257), 'longer than 256'],
  ])('refuses %s', (pattern, problem) => {
    expect(globProblem(pattern)).toContain(problem);
  });

  it.each(PATTERNS)('accepts %s', (pattern) => {
    expect(globProblem(pattern)).toBeNull();
  });
});
