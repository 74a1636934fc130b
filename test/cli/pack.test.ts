import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { cliRoot, listeningApp, runCli } from './support.js';

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

describe('the CLI package on its own', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-pack-'));
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, {
    cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    // Only what npm needs: this process's npm_config_* settings must not shape the install.
    env: { PATH: process.env.PATH ?? '', HOME: work, npm_config_cache: path.join(work, 'cache'), npm_config_update_notifier: 'false' },
  });
  let installed: string;
  let t: TestApp & { url: string };

  beforeAll(async () => {
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], cliRoot)) as { filename: string }[];
    const project = path.join(work, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'ci-job', private: true }));
    npm(['install', '--offline', '--no-audit', '--no-fund', path.join(work, packed!.filename)], project);
    installed = project;
    t = await listeningApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('installs from its tarball alone, with nothing else and no native module', () => {
    const modules = path.join(installed, 'node_modules');
    expect(fs.readdirSync(modules).filter((name) => !name.startsWith('.'))).toEqual(['@scanyard']);
    const files = filesUnder(path.join(modules, '@scanyard/cli'));
    expect(files).toContain('bin/scanyard.js');
    expect(files.filter((f) => f.endsWith('.node') || f.endsWith('binding.gyp'))).toEqual([]);
    expect(files.every((f) => f === 'package.json' || f === 'README.md' || f.startsWith('bin/') || f.startsWith('src/'))).toBe(true);
  });

  it('runs from the installed bin against a real server', async () => {
    const bin = path.join(installed, 'node_modules/@scanyard/cli/bin/scanyard.js');
    const version = await runCli(['--version'], {}, { bin });
    expect([version.code, version.stdout]).toEqual([0, '0.1.0\n']);

    const owner = await t.user('owner');
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json();
    await t.request({ method: 'POST', url: `/api/v1/orgs/${org.id}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'api' } });
    const key = await t.apiKey(owner.cookie, { scopes: ['read'] });
    const gate = await runCli(['gate', '--repo', 'acme/api'], { SCANYARD_URL: t.url, SCANYARD_KEY: key }, { bin });
    expect(gate.stderr).toBe('');
    expect(gate.code).toBe(0);
    expect(gate.stdout).toBe('acme/api:\n  gate: pass\n');
    expect(fs.existsSync(path.join(installed, 'node_modules/.bin/scanyard'))).toBe(true);
  });
});
