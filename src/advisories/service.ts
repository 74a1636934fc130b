import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Actor } from '../domain/actor.js';
import type { Policy } from '../policy.js';
import { badRequest, notFound } from '../problem.js';
import type { Page } from '../db/page.js';
import { transactions } from '../db/transaction.js';
import { advisoryStore, type AdvisoryFilters } from './store.js';
import { parseOsv, OsvError, type Advisory } from './osv.js';
import { DocumentsError, isZip, readJson, readZip, Rejections, type JsonDocument, type OsvDocument, type Rejection, type ZipLimits } from './documents.js';
import { enqueueRematch } from './rematch-store.js';
import { sourceStore } from './sources-store.js';
import { kevEntry, type KevEntry } from './kev.js';
import { EpssError, EpssReader, isEpssCsv, type EpssScore } from './epss.js';
import { priorityStore } from './priorities-store.js';
import { linesOf, openInput, textOf, turns, type ImportInput } from './input.js';

export interface ImportReport {
  added: number;
  updated: number;
  withdrawn: number;
  unchanged: number;
  /** The first rejections (REJECTIONS_LISTED), each with why. */
  rejected: Rejection[];
  /** How many records, rows or files were rejected in all. */
  rejected_total: number;
  /** Repository refs queued to be matched again because advisories of their packages changed. */
  rematch_queued: number;
  /** CVEs listed by the KEV catalogue imported, null when the input was not one. */
  kev: number | null;
  /** CVEs scored by the EPSS file imported, null when the input was not one. */
  epss: number | null;
}

/**
 * Imports what an operator or a sync source hands over, told apart by content (gzip or not): the
 * CISA KEV catalogue or a FIRST EPSS CSV replaces its snapshot; anything else is read as OSV. Every
 * input is read as it is imported, so memory follows its largest record, not its size, and the
 * thread lets other work run every few milliseconds.
 */
export async function importDocuments(db: Kysely<Database>, input: ImportInput, name: string, limits: ZipLimits): Promise<ImportReport> {
  const opened = await openInput(input, limits);
  if (isEpssCsv(opened.head.toString('utf8'))) return importEpss(db, textOf(opened.chunks()), name);
  const rejections = new Rejections();
  if (isZip(opened.head)) {
    const unreadable = new Rejections();
    const report = await importOsv(db, await readZip(await opened.whole(), name, limits, (r) => unreadable.add(r)), rejections);
    // Files that could not be read first, then records that are not OSV, as the report has always listed them.
    unreadable.addAll(rejections);
    return withRejections(report, unreadable);
  }
  const documents = readJson(textOf(opened.chunks()), name);
  // The first items say what the file is; JSON that cannot be read up to them imports nothing.
  const first = await documents.next();
  const all = (async function* () {
    if (!first.done) yield first.value;
    yield* documents;
  })();
  if (!first.done && first.value[0]!.kind === 'kev') return importKev(db, all);
  return withRejections(await importOsv(db, all, rejections), rejections);
}

function emptyReport(): ImportReport {
  return { added: 0, updated: 0, withdrawn: 0, unchanged: 0, rejected: [], rejected_total: 0, rematch_queued: 0, kev: null, epss: null };
}

function withRejections(report: ImportReport, rejections: Rejections): ImportReport {
  return { ...report, rejected: rejections.listed, rejected_total: rejections.total };
}

async function importKev(db: Kysely<Database>, documents: AsyncIterable<JsonDocument[]>): Promise<ImportReport> {
  const rejections = new Rejections();
  const turn = turns();
  async function* entries(): AsyncGenerator<KevEntry> {
    for await (const items of documents) {
      for (const item of items) {
        const entry = kevEntry(item.record);
        if ('reason' in entry) rejections.add({ file: item.file, reason: entry.reason });
        else yield entry;
        if (turn.due()) await turn.pause();
      }
    }
  }
  const kev = await priorityStore(db).replaceKev(entries());
  return { ...withRejections(emptyReport(), rejections), kev };
}

async function importEpss(db: Kysely<Database>, text: AsyncIterable<string>, name: string): Promise<ImportReport> {
  const rejections = new Rejections();
  const reader = new EpssReader();
  const turn = turns();
  async function* scores(): AsyncGenerator<EpssScore> {
    for await (const lines of linesOf(text)) {
      for (const line of lines) {
        const read = reader.line(line);
        if (read && 'reason' in read) rejections.add({ file: `${name}:${reader.lineNumber}`, reason: read.reason });
        else if (read) yield read;
        if (turn.due()) await turn.pause();
      }
    }
    reader.end();
  }
  try {
    const epss = await priorityStore(db).replaceEpss(scores());
    return { ...withRejections(emptyReport(), rejections), epss };
  } catch (error) {
    if (error instanceof EpssError) throw new DocumentsError(`the EPSS file cannot be read: ${error.message}`);
    throw error;
  }
}

/** Records per transaction: big enough that commits stop mattering, small enough to hold in memory. */
const IMPORT_BATCH = 500;

/** Changed records after which an import refreshes the planner's statistics (see refreshStatistics). */
const STATISTICS_AFTER = 1000;

/**
 * Imports OSV records. Each record stands alone: a bad one is reported with its file and reason
 * and the rest go on. Records are read as the batches take them, and a batch goes once saved: a zip
 * of 100,000 records is never held inflated or parsed as a whole. Refs whose components name a
 * package an added, changed or withdrawn record affects are queued for re-matching in the uploads
 * queue in the transaction that saves the batch, so neither a crash nor a later batch that fails
 * loses the re-match of what was saved.
 */
async function importOsv(db: Kysely<Database>, documents: AsyncIterable<OsvDocument[]>, rejections: Rejections): Promise<ImportReport> {
  const store = advisoryStore(db);
  const inTransaction = transactions(db, (trx) => ({ advisories: advisoryStore(trx), rematch: (keys: string[]) => enqueueRematch(trx, keys) }));
  const report = emptyReport();
  const turn = turns();
  let changed = 0;
  let analysedAt = 0;
  let batch = new Map<string, Advisory>();
  const flush = async () => {
    const advisories = [...batch.values()];
    batch = new Map();
    if (advisories.length === 0) return;
    const queued = await inTransaction(async ({ advisories: saving, rematch }) => {
      const saved = await saving.saveBatch(advisories);
      for (const { outcome } of saved) report[outcome]++;
      return rematch([...new Set(saved.flatMap((s) => s.keys))]);
    });
    report.rematch_queued += queued;
    changed = report.added + report.updated + report.withdrawn;
    if (analysedAt === 0 && changed >= STATISTICS_AFTER) {
      await store.refreshStatistics();
      analysedAt = changed;
    }
  };
  try {
    for await (const items of documents) {
      for (const document of items) {
        let advisory;
        try {
          advisory = parseOsv(document.record);
        } catch (error) {
          if (!(error instanceof OsvError)) throw error;
          rejections.add({ file: document.file, reason: error.message });
          continue;
        }
        // A record repeated in one import is saved after the first, as if imported one by one.
        if (batch.has(advisory.id) || batch.size === IMPORT_BATCH) await flush();
        batch.set(advisory.id, advisory);
        if (turn.due()) await turn.pause();
      }
    }
    await flush();
  } catch (error) {
    const saved = report.added + report.updated + report.withdrawn + report.unchanged;
    if (error instanceof DocumentsError && saved > 0) throw new DocumentsError(`${error.message} (the ${saved} records before it were imported)`);
    throw error;
  }
  // Refreshed once the first thousand were saved, for the re-matches already queued; again at the end.
  if (analysedAt > 0 && changed > analysedAt) await store.refreshStatistics();
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

    async import(actor: Actor, bytes: Uint8Array): Promise<ImportReport> {
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
