import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { importDocuments, type ImportReport } from './service.js';
import { DocumentsError, Rejections, type ZipLimits } from './documents.js';

/**
 * `scanyard advisories import PATH`: an OSV JSON file, a zip of them, the CISA KEV catalogue, a FIRST
 * EPSS CSV (gzip or not), or a directory holding any of these (read recursively). The operator's own files, so no policy is asked; one unreadable file is
 * reported and the others imported.
 */
export async function importPath(db: Kysely<Database>, target: string, limits: ZipLimits): Promise<ImportReport> {
  const report: ImportReport = { added: 0, updated: 0, withdrawn: 0, unchanged: 0, rejected: [], rejected_total: 0, rematch_queued: 0, kev: null, epss: null };
  const rejections = new Rejections();
  for (const file of await filesOf(target)) {
    let part: ImportReport;
    try {
      part = await importDocuments(db, { path: file }, file, limits);
    } catch (error) {
      if (!(error instanceof DocumentsError)) throw error;
      rejections.add({ file, reason: error.message });
      continue;
    }
    for (const key of ['added', 'updated', 'withdrawn', 'unchanged', 'rematch_queued'] as const) report[key] += part[key];
    rejections.addAll({ listed: part.rejected, total: part.rejected_total });
    if (part.kev !== null) report.kev = part.kev;
    if (part.epss !== null) report.epss = part.epss;
  }
  return { ...report, rejected: rejections.listed, rejected_total: rejections.total };
}

async function filesOf(target: string): Promise<string[]> {
  const stat = await fs.stat(target);
  if (!stat.isDirectory()) return [target];
  const entries = await fs.readdir(target, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && /\.(json|zip|csv|gz)$/i.test(e.name))
    .map((e) => path.join(e.parentPath, e.name)).sort();
}
