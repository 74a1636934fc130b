import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Actor } from '../domain/actor.js';
import type { Policy } from '../policy.js';
import { badRequest, notFound } from '../problem.js';
import type { Page } from '../db/page.js';
import { advisoryStore, type AdvisoryFilters } from './store.js';
import { parseOsv, OsvError, type Advisory } from './osv.js';
import { DocumentsError, readDocuments, type Rejection, type ZipLimits } from './documents.js';
import { enqueueRematch } from './rematch-store.js';
import { sourceStore } from './sources-store.js';
import { gunzipSync } from 'node:zlib';
import { isKevCatalogue, parseKev } from './kev.js';
import { EpssError, isEpssCsv, parseEpss } from './epss.js';
import { priorityStore } from './priorities-store.js';

export interface ImportReport {
  added: number;
  updated: number;
  withdrawn: number;
  unchanged: number;
  rejected: Rejection[];
  /** Repository refs queued to be matched again because advisories of their packages changed. */
  rematch_queued: number;
  /** CVEs listed by the KEV catalogue imported, null when the input was not one. */
  kev: number | null;
  /** CVEs scored by the EPSS file imported, null when the input was not one. */
  epss: number | null;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Imports what an operator or a sync source hands over, told apart by content (gzip or not): the
 * CISA KEV catalogue or a FIRST EPSS CSV replaces its snapshot; anything else is read as OSV.
 */
export async function importDocuments(db: Kysely<Database>, raw: Uint8Array, name: string, limits: ZipLimits): Promise<ImportReport> {
  const bytes = GZIP_MAGIC.every((byte, i) => raw[i] === byte) ? inflate(raw, limits) : raw;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 200)).toString('utf8');
  if (isEpssCsv(head)) return importEpss(db, bytes, name);
  if (/^\s*\{/.test(head)) {
    const kev = kevOf(bytes);
    if (kev) return importKev(db, kev, name);
  }
  return importOsv(db, bytes, name, limits);
}

function emptyReport(rejected: Rejection[] = []): ImportReport {
  return { added: 0, updated: 0, withdrawn: 0, unchanged: 0, rejected, rematch_queued: 0, kev: null, epss: null };
}

function inflate(raw: Uint8Array, limits: ZipLimits): Uint8Array {
  try {
    return gunzipSync(raw, { maxOutputLength: limits.maxInflatedBytes });
  } catch (error) {
    throw new DocumentsError(`the gzip cannot be read: ${(error as Error).message}`);
  }
}

/** The KEV catalogue when the bytes are one; JSON that is not (or not JSON at all) is left to the OSV reader. */
function kevOf(bytes: Uint8Array) {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return null;
  }
  return isKevCatalogue(value) ? value : null;
}

async function importKev(db: Kysely<Database>, value: Parameters<typeof parseKev>[0], name: string): Promise<ImportReport> {
  const catalogue = parseKev(value);
  await priorityStore(db).replaceKev(catalogue.entries);
  return { ...emptyReport(catalogue.rejected.map((r) => ({ file: `${name}:vulnerabilities[${r.index}]`, reason: r.reason }))), kev: catalogue.entries.length };
}

async function importEpss(db: Kysely<Database>, bytes: Uint8Array, name: string): Promise<ImportReport> {
  let parsed;
  try {
    parsed = parseEpss(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    if (error instanceof EpssError) throw new DocumentsError(`the EPSS file cannot be read: ${error.message}`);
    throw error;
  }
  await priorityStore(db).replaceEpss(parsed.scores);
  return { ...emptyReport(parsed.rejected.map((r) => ({ file: `${name}:${r.line}`, reason: r.reason }))), epss: parsed.scores.length };
}

/** Records per transaction: big enough that commits stop mattering, small enough to hold in memory. */
const IMPORT_BATCH = 500;

/** Changed records after which an import refreshes the planner's statistics (see refreshStatistics). */
const STATISTICS_AFTER = 1000;

/**
 * Imports OSV records. Each record stands alone: a bad one is reported with its file and reason
 * and the rest go on. Refs whose components name a package an added, changed or withdrawn record
 * affects are queued for re-matching in the uploads queue, so a crash loses none of them. Records
 * are read as the batches take them, and a batch goes once saved: a zip of 100,000 records is never
 * held inflated or parsed as a whole.
 */
async function importOsv(db: Kysely<Database>, bytes: Uint8Array, name: string, limits: ZipLimits): Promise<ImportReport> {
  const { documents, rejected } = await readDocuments(bytes, name, limits);
  const store = advisoryStore(db);
  const report = emptyReport();
  const invalid: Rejection[] = [];
  const touched = new Set<string>();
  let batch = new Map<string, Advisory>();
  const flush = async () => {
    for (const saved of await store.saveBatch([...batch.values()])) {
      report[saved.outcome]++;
      for (const key of saved.keys) touched.add(key);
    }
    batch = new Map();
  };
  for await (const document of documents) {
    let advisory;
    try {
      advisory = parseOsv(document.record);
    } catch (error) {
      if (!(error instanceof OsvError)) throw error;
      invalid.push({ file: document.file, reason: error.message });
      continue;
    }
    // A record repeated in one import is saved after the first, as if imported one by one.
    if (batch.has(advisory.id) || batch.size === IMPORT_BATCH) await flush();
    batch.set(advisory.id, advisory);
  }
  await flush();
  // Files that could not be read first, then records that are not OSV, as the report has always listed them.
  report.rejected = [...rejected, ...invalid];
  if (report.added + report.updated + report.withdrawn >= STATISTICS_AFTER) await store.refreshStatistics();
  report.rematch_queued = await enqueueRematch(db, [...touched]);
  return report;
}

export function advisoryService(db: Kysely<Database>, policy: Policy, limits: ZipLimits, sourceUrls: string[]) {
  const store = advisoryStore(db);
  return {
    /** The configured sync sources, in configured order, with how each last went (site administrators). */
    async sources(actor: Actor) {
      await policy.require(actor, 'advisory.sources');
      const rows = new Map((await sourceStore(db).list(sourceUrls)).map((row) => [row.url, row]));
      return sourceUrls.map((url) => rows.get(url) ?? { url });
    },

    async list(actor: Actor, filters: AdvisoryFilters, page: Page) {
      await policy.require(actor, 'advisory.read');
      return store.page(filters, page);
    },

    /** The advisories affecting the most of the caller's repositories (open findings), most first. */
    async top(actor: Actor, limit: number) {
      await policy.require(actor, 'advisory.read');
      return store.top(policy.orgListScope(actor), limit);
    },

    /** The id of the advisory this id or alias names; undefined when none does. */
    async resolve(idOrAlias: string): Promise<string | undefined> {
      return (await store.byIdOrAlias(idOrAlias))?.id;
    },

    /** The record, its affected packages, and those of the caller's repositories it matches. */
    async get(actor: Actor, idOrAlias: string) {
      await policy.require(actor, 'advisory.read');
      const advisory = await store.byIdOrAlias(idOrAlias);
      if (!advisory) throw notFound('The advisory');
      const [packages, repositories] = await Promise.all([
        store.packagesOf(advisory.id), store.affectedRepositories(advisory.id, policy.orgListScope(actor)),
      ]);
      return { advisory, packages, repositories };
    },

    /** Refuses before the body is read, as uploads do, so that a refused import costs nothing. */
    mayImport: (actor: Actor) => policy.require(actor, 'advisory.import'),

    async import(actor: Actor, bytes: Buffer): Promise<ImportReport> {
      await policy.require(actor, 'advisory.import');
      if (bytes.length === 0) throw badRequest('The body is empty; send an OSV record, a JSON array of records, a zip of them, the CISA KEV catalogue or a FIRST EPSS CSV.');
      try {
        return await importDocuments(db, bytes, 'body', limits);
      } catch (error) {
        if (error instanceof DocumentsError) throw badRequest(`The advisories could not be read: ${error.message}.`);
        throw error;
      }
    },
  };
}
export type AdvisoryService = ReturnType<typeof advisoryService>;
