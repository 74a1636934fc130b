import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const script = path.resolve(import.meta.dirname, '../../scripts/build-if-stale.mjs');

/** A project folder with the script, a source file, and a "build" that records each run. */
function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-stale-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(script, path.join(dir, 'scripts/build-if-stale.mjs'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src/main.ts'), 'export {};\n');
  const build = "const fs = require('fs'); for (const f of ['dist/src/main.js', 'dist/web/index.html']) { fs.mkdirSync(require('path').dirname(f), { recursive: true }); fs.writeFileSync(f, ''); } fs.appendFileSync('builds', 'x');";
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { build: `node -e "${build}"` } }));
  return dir;
}

function prestart(dir: string): number {
  const { npm_execpath: _ignored, ...env } = process.env;
  const run = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, env, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return fs.existsSync(path.join(dir, 'builds')) ? fs.readFileSync(path.join(dir, 'builds'), 'utf8').length : 0;
}

function age(dir: string, file: string, secondsAgo: number): void {
  const at = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(path.join(dir, file), at, at);
}

describe('npm start builds only when the sources are newer than the build', () => {
  let dir: string;
  beforeEach(() => {
    dir = project();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('builds when there is no build, then starts a current build at once', () => {
    expect(prestart(dir)).toBe(1);
    for (const file of ['src/main.ts', 'src', 'package.json']) age(dir, file, 60);
    expect(prestart(dir)).toBe(1);
  });

  it('builds again after a source file changes, and when one of the two outputs is missing', () => {
    prestart(dir);
    for (const file of ['src/main.ts', 'src', 'package.json']) age(dir, file, 60);
    expect(prestart(dir)).toBe(1);
    fs.writeFileSync(path.join(dir, 'src/main.ts'), 'export const changed = true;\n');
    expect(prestart(dir)).toBe(2);
    for (const file of ['src/main.ts', 'src']) age(dir, file, 60);
    fs.rmSync(path.join(dir, 'dist/web/index.html'));
    expect(prestart(dir)).toBe(3);
  });
});
