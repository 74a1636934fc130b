#!/usr/bin/env node
import pino from 'pino';
import { ConfigError, LOOPBACK, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/index.js';
import { buildApp } from './app.js';
import { resolveSessionSecret } from './auth/session.js';
import { createServices } from './services.js';
import { startMaintenance } from './maintenance.js';
import { importPath } from './advisories/import-path.js';
import { advisorySyncOptions, advisoryZipLimits } from './services.js';
import { startAdvisorySync } from './advisories/sync.js';
import { runsIngestThread } from './scans/index.js';
import { openBlobStore } from './blobs/index.js';

const COMMANDS = ['serve', 'worker', 'migrate', 'advisories'] as const;
type Command = (typeof COMMANDS)[number];

async function main(argv: string[]): Promise<void> {
  const command = (argv[0] ?? 'serve') as Command;
  if (!COMMANDS.includes(command)) fail(`unknown command "${argv[0]}"; use one of: ${COMMANDS.join(', ')}`);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const log = pino({ level: config.logLevel });
  // Where an ingest thread runs, it checkpoints SQLite's write-ahead log, not the request thread.
  const db = openDatabase(config.database, undefined, { checkpoints: !runsIngestThread(config.database, ingestWorkers(command, config)) });
  try {
    await db.migrate();
  } catch (error) {
    fail(`cannot prepare the database: ${(error as Error).message}`);
  }
  if (command === 'migrate') {
    log.info('migrations applied');
    if (config.blob) {
      // The one-off step of a deployment also makes the bucket raw uploads go to, if it is missing.
      const blobs = openBlobStore(config.blob);
      try {
        if (await blobs.ensureBucket()) log.info({ bucket: config.blob.bucket }, 'object store bucket created');
      } catch (error) {
        fail(`cannot reach the object store bucket ${config.blob.bucket}: ${(error as Error).message}`);
      } finally {
        blobs.close();
      }
    }
    await db.close();
    return;
  }
  if (command === 'advisories') {
    await advisories(argv.slice(1), config, db);
    return;
  }
  if (command === 'worker') await work(config, db, log);
  else await serve(config, db, log);
}

/** How many ingest workers the command runs: `worker` at least one, `serve` SERVICE_WORKERS, the others none. */
function ingestWorkers(command: Command, config: Config): number {
  if (command === 'worker') return Math.max(1, config.workers);
  return command === 'serve' ? config.workers : 0;
}

/** `advisories import PATH`: prints the import report as JSON; re-match jobs are left to the workers. */
async function advisories(args: string[], config: Config, db: ReturnType<typeof openDatabase>): Promise<void> {
  if (args[0] !== 'import' || !args[1]) fail('usage: scanyard advisories import PATH (an OSV JSON file, a zip of them, or a directory)');
  try {
    const report = await importPath(db.kysely, args[1], advisoryZipLimits(config));
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    fail(`cannot import advisories from ${args[1]}: ${(error as Error).message}`);
  } finally {
    await db.close();
  }
}

/** Ingest workers only: no HTTP. Scale these out beside `serve` on PostgreSQL. */
async function work(config: Config, db: ReturnType<typeof openDatabase>, log: pino.Logger): Promise<void> {
  const services = createServices(config, db);
  const count = ingestWorkers('worker', config);
  services.scans.startWorkers(count, log);
  services.webhooks.startWorkers(count, log);
  if (count > 0) services.forge.startWorkers(log);
  services.verdicts.startWorkers(count, log);
  const stopMaintenance = startMaintenance(services, log);
  const stopSync = config.advisorySources.length > 0
    ? startAdvisorySync(db.kysely, config.advisorySources, config.advisorySyncMs, advisorySyncOptions(config), log)
    : async () => undefined;
  log.info({ workers: count }, 'ingest workers started');
  onShutdown(async () => {
    stopMaintenance();
    await stopSync();
    await Promise.all([services.scans.stopWorkers(), services.webhooks.stopWorkers(), services.forge.stopWorkers(), services.verdicts.stopWorkers()]);
    await db.close();
  }, log);
}

async function serve(config: Config, db: ReturnType<typeof openDatabase>, log: pino.Logger): Promise<void> {
  const sessionSecret = resolveSessionSecret(config.sessionSecret, config.dataDir, log);
  const app = await buildApp({ config, db, sessionSecret });
  if (config.devLogin) {
    app.log.warn(config.host === LOOPBACK
      ? `development login is enabled (no sign-in provider is configured), so only this machine can connect (${LOOPBACK}). `
        + 'To serve others, configure a sign-in provider (SERVICE_PROVIDERS), or set HOST (e.g. HOST=0.0.0.0) knowing that anyone who reaches it signs in as an administrator'
      : 'development login is enabled (no sign-in provider is configured); do not expose this instance');
  }
  await app.listen({ port: config.port, host: config.host });
  onShutdown(async () => {
    await app.close();
    await db.close();
  }, log);
}

function onShutdown(stop: () => Promise<void>, log: pino.Logger): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight work');
    stop().then(() => process.exit(0), (error: unknown) => {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}

function fail(message: string): never {
  process.stderr.write(`scanyard: ${message}\n`);
  process.exit(1);
}

main(process.argv.slice(2)).catch((error: unknown) => fail((error as Error).message ?? String(error)));
