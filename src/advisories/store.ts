import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { AdvisoriesTable, Database } from '../db/schema.js';
import { now } from '../db/time.js';
import { dialectOf } from '../db/index.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { containsIgnoringCase } from '../db/like.js';
import type { Advisory } from './osv.js';
import { inKev } from './priorities-store.js';
import { readableBy } from '../policy-store.js';

/** A component of a ref and one affected entry of its package; the entry's columns are null when none is stored. */
export interface ComponentAffected {
  id: string;
  name: string;
  version: string | null;
  purl: string | null;
  package_key: string | null;
  advisory_id: string | null;
  ordinal: number | null;
  ranges: string | null;
  versions: string | null;
  aliases: string | null;
  summary: string | null;
  severity: string | null;
  withdrawn: string | null;
}

export type AdvisoryRow = Selectable<AdvisoriesTable>;

/** Which repositories a caller may see: members' orgs (null: any), within a key's orgs (null: any). */
export interface RepositoryScope {
  memberOf: string | null;
  onlyIds: string[] | null;
}

export interface AdvisoryFilters {
  q?: string;
  ecosystem?: string;
  package?: string;
}

export type ImportOutcome = 'added' | 'updated' | 'withdrawn' | 'unchanged';

export function advisoryStore(db: Kysely<Database>) {
  const dialect = dialectOf(db);
  /**
   * Open findings of the `advisories` analyses in the repositories the scope allows: from those
   * analyses (analyses_tool) to their findings (findings_identity leads with analysis_id). Joined
   * the other way round, SQLite read every finding of every tool to keep these few.
   */
  const openAdvisoryFindings = (scope: RepositoryScope) => db.selectFrom('findings')
    .innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
    .innerJoin('repos', 'repos.id', 'findings.repository_id')
    .where('findings.analysis_id', 'in', (eb) => eb.selectFrom('analyses').select('id').where('tool', '=', 'advisories'))
    .where('findings.state', '=', 'open')
    .$if(scope.memberOf !== null, (q) => q.where(readableBy(scope.memberOf!)))
    .$if(scope.onlyIds !== null, (q) => q.where('repos.org_id', 'in', scope.onlyIds!));
  return {
    /**
     * Brings PostgreSQL's statistics of the advisory tables up to date after a large import, so
     * that the re-match jobs it queues, and matching at ingest, probe the package index per
     * component. Until autovacuum got round to it, the planner took 100,000 fresh records for a few
     * hundred and joined them whole (0.3 s a match instead of 0.05 s). SQLite plans by its indexes
     * without statistics.
     */
    async refreshStatistics(): Promise<void> {
      if (dialect === 'postgres') await sql`analyze advisories, advisory_packages, advisory_aliases, advisory_ecosystems`.execute(db);
    },

    /**
     * Stores each record unless the stored one is as new or newer (`modified`). Called in one
     * transaction for the batch (the store is made on it): on PostgreSQL a commit per record made
     * importing OSV's npm export take minutes. Ids must be distinct within a batch (the caller starts
     * a new batch when one repeats). Returns, per record, what happened and the package keys whose
     * matches may change (old and new record's).
     */
    async saveBatch(advisories: Advisory[]): Promise<{ outcome: ImportOutcome; keys: string[] }[]> {
      if (advisories.length === 0) return [];
      const ids = advisories.map((a) => a.id);
      const stored = new Map((await db.selectFrom('advisories').select(['id', 'modified', 'withdrawn']).where('id', 'in', ids).execute()).map((r) => [r.id, r]));
      const changed = advisories.filter((a) => { const s = stored.get(a.id); return !s || s.modified < a.modified; });
      const replaced = changed.filter((a) => stored.has(a.id)).map((a) => a.id);
      const oldKeys = new Map<string, string[]>();
      if (replaced.length > 0) {
        for (const r of await db.selectFrom('advisory_packages').select(['advisory_id', 'package_key']).where('advisory_id', 'in', replaced).execute()) {
          if (r.package_key !== null) oldKeys.set(r.advisory_id, [...(oldKeys.get(r.advisory_id) ?? []), r.package_key]);
        }
        await db.deleteFrom('advisory_aliases').where('advisory_id', 'in', replaced).execute();
        await db.deleteFrom('advisory_packages').where('advisory_id', 'in', replaced).execute();
        await db.deleteFrom('advisory_ecosystems').where('advisory_id', 'in', replaced).execute();
      }
      const at = now();
      const rows = changed.map((a) => ({
        id: a.id, modified: a.modified, published: a.published, withdrawn: a.withdrawn,
        aliases: JSON.stringify(a.aliases), summary: a.summary, details: a.details,
        severity: a.severity, cvss_score: a.cvssScore, imported_at: at,
        references: a.references.length > 0 ? JSON.stringify(a.references) : null,
      }));
      for (const { id, ...row } of rows.filter((r) => stored.has(r.id))) await db.updateTable('advisories').set(row).where('id', '=', id).execute();
      await insertChunked(db, 'advisories', rows.filter((r) => !stored.has(r.id)));
      await insertChunked(db, 'advisory_aliases', changed.flatMap((a) => a.aliases.map((alias) => ({ alias, advisory_id: a.id }))));
      await insertChunked(db, 'advisory_packages', changed.flatMap((a) => a.affected.map((p, ordinal) => ({
        advisory_id: a.id, ordinal, ecosystem: p.ecosystem, name: p.name, package_key: p.key,
        ranges: JSON.stringify(p.ranges), versions: JSON.stringify(p.versions),
      }))));
      await insertChunked(db, 'advisory_ecosystems', changed.flatMap((a) => [...new Set(a.affected.map((p) => p.ecosystem))]
        .map((ecosystem) => ({ advisory_id: a.id, ecosystem, modified: a.modified }))));
      return advisories.map((advisory) => {
        const before = stored.get(advisory.id);
        if (before && before.modified >= advisory.modified) return { outcome: 'unchanged' as const, keys: [] };
        const keys = [...(oldKeys.get(advisory.id) ?? []), ...advisory.affected.map((a) => a.key).filter((k): k is string => k !== null)];
        const outcome: ImportOutcome = advisory.withdrawn && !before?.withdrawn ? 'withdrawn' : before ? 'updated' : 'added';
        return { outcome, keys: [...new Set(keys)] };
      });
    },

    /**
     * A ref's components with a purl (the advisories analysis's own rows excluded: it has none), each
     * with every affected entry stored for its package, in one query: one row per component and
     * entry, or one row with no entry. Asking for the entries of 20,000 package keys in lists of
     * 5,000 parameters cost PostgreSQL 90 ms a list.
     */
    refComponentsAffected(refId: string): Promise<ComponentAffected[]> {
      return db.selectFrom('components')
        .innerJoin('analyses', 'analyses.id', 'components.analysis_id')
        .leftJoin('advisory_packages', 'advisory_packages.package_key', 'components.package_key')
        .leftJoin('advisories', 'advisories.id', 'advisory_packages.advisory_id')
        .select(['components.id', 'components.name', 'components.version', 'components.purl', 'components.package_key',
          'advisory_packages.advisory_id', 'advisory_packages.ordinal', 'advisory_packages.ranges', 'advisory_packages.versions',
          'advisories.aliases', 'advisories.summary', 'advisories.severity', 'advisories.withdrawn'])
        .where('analyses.ref_id', '=', refId).where('components.purl', 'is not', null)
        .execute();
    },

    /**
     * Newest `modified` first, walking an index in that order (migration 0027): by ecosystem, the
     * advisory's row per ecosystem in `advisory_ecosystems`, counted there without reading the
     * advisories; otherwise the advisories themselves. Text search (`q`) reads every advisory.
     */
    async page(filters: AdvisoryFilters, page: Page): Promise<Paged<AdvisoryRow>> {
      const { ecosystem, package: name, q } = filters;
      const searched = (eb: ExpressionBuilder<Database, 'advisories'>) => eb.or([
        containsIgnoringCase(dialect, 'advisories.id', q!), containsIgnoringCase(dialect, 'advisories.aliases', q!), containsIgnoringCase(dialect, 'advisories.summary', q!),
      ]);
      const ofPackage = db.selectFrom('advisory_packages').select('advisory_packages.advisory_id').where('advisory_packages.name', '=', name!)
        .$if(ecosystem !== undefined, (query) => query.where('advisory_packages.ecosystem', '=', ecosystem!));
      if (ecosystem !== undefined) {
        const inEcosystem = db.selectFrom('advisory_ecosystems').where('advisory_ecosystems.ecosystem', '=', ecosystem)
          .$if(name !== undefined, (query) => query.where('advisory_ecosystems.advisory_id', 'in', ofPackage))
          .$if(Boolean(q), (query) => query.where('advisory_ecosystems.advisory_id', 'in', db.selectFrom('advisories').select('advisories.id').where(searched)));
        // The page's ids first, then their advisories: joined in one statement, PostgreSQL looked up
        // the advisory of every row skipped by the offset (page 200 of npm: 33 ms, against 1 ms).
        const ids = await paginate(inEcosystem, page, (query) => query.select('advisory_ecosystems.advisory_id')
          .orderBy('advisory_ecosystems.modified', 'desc').orderBy('advisory_ecosystems.advisory_id'));
        const order = new Map(ids.items.map((row, at) => [row.advisory_id, at]));
        const rows = order.size === 0 ? [] : await db.selectFrom('advisories').selectAll().where('id', 'in', [...order.keys()]).execute();
        return { total: ids.total, items: rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!) };
      }
      const advisories = db.selectFrom('advisories')
        .$if(name !== undefined, (query) => query.where('advisories.id', 'in', ofPackage))
        .$if(Boolean(q), (query) => query.where(searched));
      return paginate(advisories, page, (query) => query.selectAll('advisories').orderBy('advisories.modified', 'desc').orderBy('advisories.id'));
    },

    /** By its id, else by one of its aliases (the first such record by id when several share it). */
    async byIdOrAlias(id: string): Promise<AdvisoryRow | undefined> {
      return (await db.selectFrom('advisories').selectAll().where('id', '=', id).executeTakeFirst())
        ?? db.selectFrom('advisories').selectAll()
          .where('id', 'in', (eb) => eb.selectFrom('advisory_aliases').select('advisory_id').where('alias', '=', id))
          .orderBy('id').limit(1).executeTakeFirst();
    },

    packagesOf(advisoryId: string) {
      return db.selectFrom('advisory_packages').select(['ecosystem', 'name', 'ranges', 'versions'])
        .where('advisory_id', '=', advisoryId).orderBy('ordinal').execute();
    },

    /**
     * The advisories with open findings in the most repositories in scope, those in the KEV catalogue
     * (by id or alias) first, then the most severe, then by id: one grouped read of the `advisories`
     * analyses' open findings.
     */
    top(scope: RepositoryScope, limit: number) {
      if (scope.onlyIds?.length === 0) return Promise.resolve([]);
      return openAdvisoryFindings(scope)
        .innerJoin('advisories', 'advisories.id', 'findings.rule_id')
        // Its other columns depend on the primary key, which both databases accept as the group.
        .groupBy('advisories.id')
        .selectAll('advisories')
        .select((eb) => eb.fn.count<number | string>('findings.repository_id').distinct().as('repositories'))
        .orderBy((eb) => eb.case().when(inKev('advisories.id')).then(0).else(1).end())
        .orderBy('repositories', 'desc')
        .orderBy((eb) => eb.case().when('advisories.severity', '=', 'critical').then(0).when('advisories.severity', '=', 'high').then(1)
          .when('advisories.severity', '=', 'medium').then(2).when('advisories.severity', '=', 'low').then(3).else(4).end())
        .orderBy('advisories.id')
        .limit(limit)
        .execute();
    },

    /** The repositories in scope whose components this advisory matches (its open findings), by ref. */
    affectedRepositories(advisoryId: string, scope: RepositoryScope) {
      if (scope.onlyIds?.length === 0) return Promise.resolve([]);
      return openAdvisoryFindings(scope)
        .innerJoin('refs', 'refs.id', 'analyses.ref_id')
        .innerJoin('orgs', 'orgs.id', 'repos.org_id')
        .select(['repos.id as repository_id', 'repos.name as repository_name', 'orgs.id as org_id', 'orgs.name as org_name',
          'refs.kind as ref_kind', 'refs.name as ref_name', 'findings.package_name', 'findings.package_version', 'findings.purl'])
        .where('findings.rule_id', '=', advisoryId)
        .orderBy('orgs.name').orderBy('repos.name').orderBy('refs.name').orderBy('findings.purl')
        .limit(1000)
        .execute();
    },
  };
}

/** Multi-row inserts of at most ROWS_PER_INSERT rows: within both databases' parameter limits at ten columns. */
const ROWS_PER_INSERT = 500;

async function insertChunked<T extends 'advisories' | 'advisory_aliases' | 'advisory_packages' | 'advisory_ecosystems'>(
  db: Kysely<Database>, table: T, rows: Insertable<Database[T]>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await db.insertInto(table).values(rows.slice(i, i + ROWS_PER_INSERT) as never).execute();
  }
}
