import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { KevEntry } from './kev.js';
import type { EpssScore } from './epss.js';
import { now } from '../db/time.js';

/** Rows per INSERT: well under either database's limit on bound parameters. */
const CHUNK = 1000;

/**
 * KEV and EPSS are published as whole snapshots (a CVE dropped from one is no longer listed), so an
 * import replaces the table in one transaction: readers see the old snapshot or the new one. The
 * rows are written as they are read, never held together; a CVE listed twice keeps its last row.
 * Each returns how many CVEs the table then holds.
 */
export function priorityStore(db: Kysely<Database>) {
  return {
    replaceKev: async (entries: AsyncIterable<KevEntry>) => {
      // The SLA's KEV clock starts when Scanyard learnt of the CVE: a re-import keeps that time.
      const known = new Map((await db.selectFrom('kev_entries').select(['cve', 'imported_at']).execute()).map((row) => [row.cve, row.imported_at]));
      const at = now();
      async function* stamped() {
        for await (const entry of entries) yield { ...entry, imported_at: known.get(entry.cve) ?? at };
      }
      return replace(db, 'kev_entries', stamped());
    },
    replaceEpss: (scores: AsyncIterable<EpssScore>) => replace(db, 'epss_scores', scores),
  };
}

async function replace<T extends 'kev_entries' | 'epss_scores'>(db: Kysely<Database>, table: T, rows: AsyncIterable<Insertable<Database[T]> & { cve: string }>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom(table).execute();
    // By CVE within a chunk: PostgreSQL refuses an INSERT that would update one row twice.
    let chunk = new Map<string, Insertable<Database[T]>>();
    const write = async () => {
      if (chunk.size === 0) return;
      const values = [...chunk.values()];
      chunk = new Map();
      const columns = Object.keys(values[0]!).filter((column) => column !== 'cve');
      const excluded = Object.fromEntries(columns.map((column) => [column, sql.ref(`excluded.${column}`)]));
      await trx.insertInto(table).values(values as never).onConflict((oc) => oc.column('cve').doUpdateSet(excluded as never)).execute();
    };
    for await (const row of rows) {
      chunk.delete(row.cve);
      chunk.set(row.cve, row);
      if (chunk.size === CHUNK) await write();
    }
    await write();
    const { count } = await trx.selectFrom(table as 'epss_scores').select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    return Number(count);
  });
}

/**
 * The names a finding goes by, as SQL: its rule id, the aliases of the advisory that id names, and
 * the names of any advisory listing the id as an alias (a scanner's GHSA id whose OSV record is a
 * PYSEC one aliasing the CVE). Findings matched from advisories have the advisory's id as rule id,
 * so their stored aliases are among these. Every step is an indexed probe of advisory_aliases.
 */
function namesOf(ruleId: string): RawBuilder<unknown> {
  const rule = sql.ref(ruleId);
  return sql`select ${rule} union select a.alias from advisory_aliases a where a.advisory_id = ${rule}
    union select b.alias from advisory_aliases b where b.advisory_id in (select c.advisory_id from advisory_aliases c where c.alias = ${rule})
    union select d.advisory_id from advisory_aliases d where d.alias = ${rule}`;
}

/** True when any name of the finding is in the KEV catalogue. */
export function inKev(ruleId = 'findings.rule_id'): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from kev_entries k where k.cve in (${namesOf(ruleId)}))`;
}

/** When Scanyard first imported the earliest KEV entry among the finding's names; null when none is listed. */
export function kevAddedAt(ruleId = 'findings.rule_id'): RawBuilder<string | null> {
  return sql<string | null>`(select min(k.imported_at) from kev_entries k where k.cve in (${namesOf(ruleId)}))`;
}

/** The highest EPSS probability among the finding's names, null when none is scored. */
export function epssProbability(ruleId = 'findings.rule_id'): RawBuilder<number | null> {
  return sql<number | null>`(select max(e.probability) from epss_scores e where e.cve in (${namesOf(ruleId)}))`;
}

/** The percentile of that highest-scored name (within one snapshot percentile rises with probability). */
export function epssPercentile(ruleId = 'findings.rule_id'): RawBuilder<number | null> {
  return sql<number | null>`(select max(e.percentile) from epss_scores e where e.cve in (${namesOf(ruleId)}))`;
}
