import type { Insertable, Selectable, Transaction, Updateable } from 'kysely';
import type { AnalysesTable, ComponentsTable, Database, FindingsTable, RefRow, UploadRow, VexStatementsTable } from '../db/schema.js';
import type { StoredStatement } from '../vex/match.js';
import type { Db } from '../db/index.js';
import { bulkInsert, bulkUpdate, type PgColumnType } from '../db/bulk-insert.js';
import { newId } from '../db/ids.js';
import { COMPONENT_CONTENT, type StoredComponent } from './component-rows.js';

/** Ids per `IN (...)` list: well inside SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const CHUNK = 5000;

const FINDING_COLUMNS: Record<keyof FindingsTable, PgColumnType> = {
  id: 'text', repository_id: 'text', ref_id: 'text', analysis_id: 'text', fingerprint: 'text', rule_id: 'text', rule_name: 'text',
  message: 'text', severity: 'text', severity_rank: 'integer', level: 'text', kind: 'text', file_path: 'text', start_line: 'integer',
  end_line: 'integer', package_name: 'text', package_version: 'text', purl: 'text', help_uri: 'text', state: 'text',
  first_upload_id: 'text', created_at: 'timestamptz', updated_at: 'timestamptz', fixed_at: 'timestamptz', reopened_at: 'timestamptz',
  fixed_upload_id: 'text', reopened_upload_id: 'text', commit_sha: 'text', occurrences: 'integer', aliases: 'text', fixed_versions: 'text',
  locations: 'text', snippet: 'text',
};

/** What a re-import may change in a finding it already has; identity, state and history stay. */
const DETAIL_NAMES = [
  'rule_name', 'message', 'severity', 'severity_rank', 'level', 'kind', 'file_path', 'start_line', 'end_line', 'package_name',
  'package_version', 'purl', 'help_uri', 'commit_sha', 'occurrences', 'aliases', 'fixed_versions', 'locations', 'snippet', 'updated_at',
] as const;
const DETAIL_COLUMNS = columnsOf(DETAIL_NAMES);
export type FindingDetails = { id: string } & Pick<NewFinding, (typeof DETAIL_NAMES)[number]>;

/**
 * Where a finding is: all a re-import writes of a finding whose code only moved. A third of the
 * parameters of all its details, and none of the indexed columns, which SQLite otherwise updates
 * in every index that names one, changed or not.
 */
const PLACE_NAMES = ['start_line', 'end_line', 'locations', 'snippet', 'updated_at'] as const;
const PLACE_COLUMNS = columnsOf(PLACE_NAMES);
export type FindingPlace = { id: string } & Pick<NewFinding, (typeof PLACE_NAMES)[number]>;

function columnsOf(names: readonly (keyof FindingsTable)[]): Record<string, PgColumnType> {
  return Object.fromEntries(names.map((name) => [name, FINDING_COLUMNS[name]]));
}

const COMPONENT_COLUMNS: Record<keyof ComponentsTable, PgColumnType> = {
  id: 'text', repository_id: 'text', analysis_id: 'text', upload_id: 'text', ref: 'text', name: 'text', version: 'text',
  purl: 'text', type: 'text', licenses: 'text', hashes: 'text', depends_on: 'text', package_key: 'text', direct: 'integer',
};

export interface IngestDismissal {
  fingerprint: string;
  reason: string;
  comment: string | null;
  until: string | null;
  suppressionId: string | null;
  /** The VEX upload whose stored statement dismisses it, if one does. */
  vexUploadId: string | null;
}

export type ExistingFinding = Pick<Selectable<FindingsTable>, 'id' | 'fingerprint' | 'state' | 'severity' | 'message' | 'start_line' | 'end_line' | 'file_path' | 'rule_name' | 'commit_sha' | 'occurrences' | 'fixed_versions' | 'purl'>;
export type NewFinding = Insertable<FindingsTable>;
export type NewComponent = Insertable<ComponentsTable>;

/** SQL of findings tracking; every call runs inside the ingest transaction. */
export function trackingStore(trx: Transaction<Database>, db: Db) {
  const { dialect } = db;
  const target = { trx, dialect };
  return {
    /** Serialises ingests of one repository across workers (SQLite transactions are serial anyway). */
    async lockRepository(repositoryId: string): Promise<boolean> {
      let query = trx.selectFrom('repos').select('id').where('id', '=', repositoryId);
      if (dialect === 'postgres') query = query.forUpdate();
      return (await query.executeTakeFirst()) !== undefined;
    },

    /**
     * The upload's ref. Accepting the upload created it; it is created again here if retention
     * removed it while the upload waited.
     */
    async ref(upload: Pick<UploadRow, 'repository_id' | 'ref_kind' | 'ref_name' | 'created_at'>): Promise<RefRow> {
      const find = () => trx.selectFrom('refs').selectAll()
        .where('repository_id', '=', upload.repository_id).where('kind', '=', upload.ref_kind).where('name', '=', upload.ref_name)
        .executeTakeFirst();
      const found = await find();
      if (found) return found;
      await trx.insertInto('refs').values({
        id: newId(), repository_id: upload.repository_id, kind: upload.ref_kind, name: upload.ref_name, base_ref: null, state: 'processing',
        last_upload_at: upload.created_at, last_completed_at: null, open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0,
        components: 0, fixed_total: 0,
      }).onConflict((oc) => oc.doNothing()).execute();
      return (await find())!;
    },

    baseRef(repositoryId: string, branch: string): Promise<RefRow | undefined> {
      return trx.selectFrom('refs').selectAll()
        .where('repository_id', '=', repositoryId).where('kind', '=', 'branch').where('name', '=', branch).executeTakeFirst();
    },

    async setBaseRef(refId: string, baseRef: string | null): Promise<void> {
      await trx.updateTable('refs').set({ base_ref: baseRef }).where('id', '=', refId).execute();
    },

    /** After the ref's components were matched against the advisories: how many could not be checked. */
    async setComponentsUnchecked(refId: string, unchecked: number): Promise<void> {
      await trx.updateTable('refs').set({ components_unchecked: unchecked }).where('id', '=', refId).execute();
    },

    /** The repository's dismissed fingerprints: one indexed read per upload, however many findings it brings. */
    async dismissedFingerprints(repositoryId: string): Promise<Set<string>> {
      const rows = await trx.selectFrom('dismissals').select('fingerprint').where('repository_id', '=', repositoryId).execute();
      return new Set(rows.map((r) => r.fingerprint));
    },

    async openFingerprints(analysisId: string): Promise<string[]> {
      const rows = await trx.selectFrom('findings').select('fingerprint')
        .where('analysis_id', '=', analysisId).where('state', '=', 'open').execute();
      return rows.map((r) => r.fingerprint);
    },

    /**
     * On PostgreSQL the row is key-share locked until commit: findings and components do not check
     * their analysis (migration 0022), so a delete of it (its ref pruned) waits for this ingest and
     * then removes what it wrote, rather than leaving rows of a deleted analysis.
     */
    async analysis(refId: string, tool: string, category: string, format: string) {
      let query = trx.selectFrom('analyses')
        .leftJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
        .selectAll('analyses')
        .select('uploads.created_at as last_upload_created_at')
        .where('analyses.ref_id', '=', refId)
        .where('analyses.tool', '=', tool)
        .where('analyses.category', '=', category)
        .where('analyses.format', '=', format);
      if (dialect === 'postgres') query = query.forKeyShare('analyses');
      return query.executeTakeFirst();
    },

    async insertAnalysis(row: Insertable<AnalysesTable>): Promise<void> {
      await trx.insertInto('analyses').values(row).execute();
    },

    async updateAnalysis(id: string, values: Omit<Updateable<AnalysesTable>, 'id'>): Promise<void> {
      await trx.updateTable('analyses').set(values).where('id', '=', id).execute();
    },

    existingFindings(analysisId: string): Promise<ExistingFinding[]> {
      return trx.selectFrom('findings')
        .select(['id', 'fingerprint', 'state', 'severity', 'message', 'start_line', 'end_line', 'file_path', 'rule_name', 'commit_sha', 'occurrences', 'fixed_versions', 'purl'])
        .where('analysis_id', '=', analysisId).execute();
    },

    insertFindings: <Item>(items: readonly Item[], rowOf: (item: Item) => NewFinding) => bulkInsert(target, 'findings', FINDING_COLUMNS, items, rowOf),

    async setState(ids: string[], values: Updateable<FindingsTable>): Promise<void> {
      for (let i = 0; i < ids.length; i += CHUNK) {
        await trx.updateTable('findings').set(values).where('id', 'in', ids.slice(i, i + CHUNK)).execute();
      }
    },

    /** Each finding's details (what the tool says of it now: lines, message, severity, ...) by id; all of one analysis. */
    updateDetails: (analysisId: string, rows: FindingDetails[]) => bulkUpdate(target, 'findings', DETAIL_COLUMNS, rows, { column: 'analysis_id', value: analysisId }),

    /** Each moved finding's place (lines, locations, snippet) by id; all of one analysis. */
    updatePlaces: (analysisId: string, rows: FindingPlace[]) => bulkUpdate(target, 'findings', PLACE_COLUMNS, rows, { column: 'analysis_id', value: analysisId }),

    /** The help of the analysis's rules, as its latest upload gave it. */
    async replaceRuleHelp(analysisId: string, help: Map<string, string>): Promise<void> {
      await trx.deleteFrom('finding_rules').where('analysis_id', '=', analysisId).execute();
      const rows = [...help].map(([ruleId, text]) => ({ analysis_id: analysisId, rule_id: ruleId, help: text }));
      for (let i = 0; i < rows.length; i += 1000) await trx.insertInto('finding_rules').values(rows.slice(i, i + 1000)).execute();
    },

    /** Suppression rules of the repository's org still in force: few rows, matched in memory. */
    activeSuppressions(repositoryId: string, at: string) {
      return trx.selectFrom('suppressions').innerJoin('repos', 'repos.org_id', 'suppressions.org_id')
        .selectAll('suppressions').where('repos.id', '=', repositoryId)
        .where((eb) => eb.or([eb('suppressions.expires_at', 'is', null), eb('suppressions.expires_at', '>', at)]))
        .orderBy('suppressions.created_at').execute();
    },

    /** The repository's kept VEX statements. */
    vexStatements(repositoryId: string): Promise<StoredStatement[]> {
      return trx.selectFrom('vex_statements')
        .select(['vulnerability', 'product', 'version', 'aliases', 'status', 'justification', 'detail', 'upload_id', 'stated_at'])
        .where('repository_id', '=', repositoryId).execute();
    },

    /** Keeps statements, each replacing the repository's earlier one about the same vulnerability, product and version. */
    async saveVexStatements(rows: Insertable<VexStatementsTable>[]): Promise<void> {
      for (let i = 0; i < rows.length; i += 500) {
        await trx.insertInto('vex_statements').values(rows.slice(i, i + 500))
          .onConflict((oc) => oc.columns(['repository_id', 'vulnerability', 'product', 'version']).doUpdateSet((eb) => ({
            aliases: eb.ref('excluded.aliases'), status: eb.ref('excluded.status'), justification: eb.ref('excluded.justification'),
            detail: eb.ref('excluded.detail'), upload_id: eb.ref('excluded.upload_id'), stated_at: eb.ref('excluded.stated_at'),
          }))).execute();
      }
    },

    /** The purls the repository's stored SBOMs give these bom-refs (what a CycloneDX VEX's affects[].ref names). */
    async purlsOfRefs(repositoryId: string, refs: string[]): Promise<Map<string, string>> {
      // Every stored statement's refs: past 65,535 parameters in one list PostgreSQL refuses the
      // query, and every later upload to the repository with it.
      const distinct = [...new Set(refs)];
      const purls = new Map<string, string>();
      for (let i = 0; i < distinct.length; i += CHUNK) {
        const rows = await trx.selectFrom('components').select(['ref', 'purl'])
          .where('repository_id', '=', repositoryId).where('ref', 'in', distinct.slice(i, i + CHUNK)).where('purl', 'is not', null).execute();
        for (const r of rows) purls.set(r.ref!, r.purl!);
      }
      return purls;
    },

    /**
     * The repository's present findings that name a package: what VEX statements are about. Read
     * through its refs (findings_ref_vulnerabilities): PostgreSQL has no index of findings by
     * repository, and this read every finding of every repository that names a package.
     */
    presentVulnerabilities(repositoryId: string) {
      return trx.selectFrom('findings').select(['fingerprint', 'rule_id', 'aliases', 'purl', 'package_version'])
        .where('ref_id', 'in', (eb) => eb.selectFrom('refs').select('id').where('repository_id', '=', repositoryId))
        .where('repository_id', '=', repositoryId).where('state', '!=', 'fixed').where('purl', 'is not', null).execute();
    },

    /** Each dismissed fingerprint of the repository: how, and by which VEX upload if one did (null: a person, rule or tool). */
    async dismissalSources(repositoryId: string): Promise<Map<string, { vexUploadId: string | null; reason: string; comment: string | null }>> {
      const rows = await trx.selectFrom('dismissals').select(['fingerprint', 'vex_upload_id', 'reason', 'comment']).where('repository_id', '=', repositoryId).execute();
      return new Map(rows.map((r) => [r.fingerprint, { vexUploadId: r.vex_upload_id, reason: r.reason, comment: r.comment }]));
    },

    /** Dismissals made by ingest (the tool's own suppressions, suppression rules, kept VEX statements) for fingerprints not dismissed yet. */
    async addDismissals(repositoryId: string, dismissals: IngestDismissal[], at: string): Promise<void> {
      for (let i = 0; i < dismissals.length; i += 1000) {
        const chunk = dismissals.slice(i, i + 1000);
        await trx.insertInto('dismissals').values(chunk.map((d) => ({
          repository_id: repositoryId, fingerprint: d.fingerprint, reason: d.reason, comment: d.comment, dismissed_by: null, dismissed_at: at,
          dismissed_until: d.until, suppression_id: d.suppressionId, vex_upload_id: d.vexUploadId,
        }))).onConflict((oc) => oc.columns(['repository_id', 'fingerprint']).doNothing()).execute();
        await trx.insertInto('finding_events').values(chunk.map((d) => ({
          id: newId(), repository_id: repositoryId, fingerprint: d.fingerprint, event: d.suppressionId ? 'dismissed_by_rule' : d.vexUploadId ? 'dismissed_by_vex' : 'dismissed',
          reason: d.reason, comment: d.comment, actor_id: null, created_at: at,
        }))).execute();
      }
    },

    /** The analysis's components as stored: their ids and what an SBOM says of each. */
    storedComponents(analysisId: string): Promise<StoredComponent[]> {
      return trx.selectFrom('components').select(['id', ...COMPONENT_CONTENT]).where('analysis_id', '=', analysisId).execute();
    },

    /** Removes these components of the analysis; `null`: all of them. */
    async deleteComponents(analysisId: string, ids: readonly string[] | null): Promise<void> {
      if (ids === null) {
        await trx.deleteFrom('components').where('analysis_id', '=', analysisId).execute();
        return;
      }
      for (let i = 0; i < ids.length; i += CHUNK) {
        await trx.deleteFrom('components').where('analysis_id', '=', analysisId).where('id', 'in', ids.slice(i, i + CHUNK)).execute();
      }
    },

    async insertComponents<Item>(items: readonly Item[], rowOf: (item: Item) => NewComponent): Promise<void> {
      await bulkInsert(target, 'components', COMPONENT_COLUMNS, items, rowOf);
    },
  };
}
export type TrackingStore = ReturnType<typeof trackingStore>;
