// Runs before `npm start`: builds only when a source file is newer than the build, so a current
// build starts at once and an edited checkout never serves stale code. Plain JavaScript, because it
// must run before anything is compiled and without tsx's start-up cost.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = [
  'src', 'web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json',
  'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json',
];
// The server's entry point and the web UI's page: each build step writes its own last.
const OUTPUTS = ['dist/src/main.js', 'dist/web/index.html'];

function newest(file) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(file).reduce((max, name) => Math.max(max, newest(path.join(file, name))), stat.mtimeMs);
}

function builtAt() {
  let oldest = Infinity;
  for (const file of OUTPUTS) {
    try {
      oldest = Math.min(oldest, statSync(path.join(root, file)).mtimeMs);
    } catch {
      return 0;
    }
  }
  return oldest;
}

const changed = SOURCES.map((s) => path.join(root, s)).reduce((max, file) => Math.max(max, newest(file)), 0);
if (builtAt() < changed) {
  console.error('Sources are newer than dist/: building (npm run build).');
  const npm = process.env.npm_execpath;
  const build = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
