import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001_initial.js';
import * as findingKind from './0002_finding_kind.js';
import * as findingsPageIndex from './0003_findings_page_index.js';

/** Migrations are imported, not read from disk, so the built package needs no file globbing. */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_finding_kind': findingKind,
  '0003_findings_page_index': findingsPageIndex,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};

export const latestMigration = Object.keys(migrations).sort().at(-1)!;
