import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

describe('supported Node.js versions', () => {
  it('every installed package supports the oldest Node.js that package.json promises (no EBADENGINE)', () => {
    const oldest = semver.minVersion(read('package.json').engines.node)!;
    expect(oldest.version).toBe('20.19.0');
    const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    const unsupported = Object.entries(packages)
      .filter(([name, p]) => name !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter(([, p]) => !semver.satisfies(oldest, (p.engines as { node: string }).node))
      .map(([name, p]) => `${name}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(unsupported).toEqual([]);
  });
});
