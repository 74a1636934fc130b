import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Db, Dialect } from '../db/index.js';
import { newId } from '../db/ids.js';
import type { RefName } from '../domain/ref-name.js';
import { refIdOf } from '../refs/store.js';
import { containsIgnoringCase } from '../db/like.js';
import type { Severity } from '../domain/scan.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { REMATCH_FORMAT } from '../domain/rematch.js';
import { refreshRefTotals, syncRepoStatus } from '../results/status-store.js';
import { graphRows, packageComponents } from '../results/store.js';
import { enqueueEvent } from '../webhooks/outbox.js';
import { epssPercentile, epssProbability, inKev } from '../advisories/priorities-store.js';

/** Ids per `IN (...)` list: well inside SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 5000;
/** Fingerprints named in one finding.dismissed event; `count` says how many there were. */
const WEBHOOK_FINGERPRINTS = 100;

export type DismissReason = 'false_positive' | 'wont_fix' | 'used_in_tests' | 'accepted_risk' | 'not_affected' | 'suppressed';

/** What a person (or the expiry) does to some fingerprints of one repository. */
export type TriageChange =
  | { state: 'dismissed'; reason: DismissReason; comment: string | null; until: string | null }
  | { state: 'open'; comment: string | null };

/** The findings list's filters that make sense for triage (a fixed finding has nothing to triage). */
export interface TriageFilters {
  state: 'open' | 'dismissed' | 'all';
  severity?: Severity;
  tool?: string;
  q?: string;
  introducedIn?: string;
  reopenedIn?: string;
}

/** A triage event as stored; ingest's own transitions are read from the finding row instead. */
export type TriageEvent = 'dismissed' | 'reopened_by_hand' | 'dismissal_expired' | 'dismissed_by_rule' | 'rule_deleted' | 'dismissed_by_vex' | 'reopened_by_vex';

export function findingStore(db: Db) {
  const { kysely, dialect } = db;
  return {
    /** One finding with what its page shows: analysis, repository, the commit of the analysis's upload, its dismissal. */
    /** The ref's components with exactly this purl (the package a finding names), each with its place in its SBOM's graph. */
    componentsWithPurl: (refId: string, purl: string) => packageComponents(kysely, refId, [purl]),

    graph: (analysisId: string) => graphRows(kysely, analysisId),

    finding(id: string) {
      return kysely.selectFrom('findings')
        .innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
        .innerJoin('refs', 'refs.id', 'findings.ref_id')
        .innerJoin('repos', 'repos.id', 'findings.repository_id')
        .leftJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
        .leftJoin('dismissals', (join) => join.onRef('dismissals.repository_id', '=', 'findings.repository_id').onRef('dismissals.fingerprint', '=', 'findings.fingerprint'))
        .leftJoin('users', 'users.id', 'dismissals.dismissed_by')
        .leftJoin('finding_rules', (join) => join.onRef('finding_rules.analysis_id', '=', 'findings.analysis_id').onRef('finding_rules.rule_id', '=', 'findings.rule_id'))
        .selectAll('findings')
        .select([
          'analyses.tool', 'analyses.category', 'analyses.format', 'refs.kind as ref_kind', 'refs.name as ref_name',
          'repos.url as repository_url', 'uploads.commit_sha as upload_commit_sha',
          'dismissals.reason as dismissed_reason', 'dismissals.comment as dismissed_comment', 'dismissals.dismissed_at',
          'dismissals.dismissed_until', 'users.login as dismissed_by', 'finding_rules.help',
          inKev().as('in_kev'), epssProbability().as('epss_probability'), epssPercentile().as('epss_percentile'),
        ])
        .where('findings.id', '=', id).executeTakeFirst();
    },

    /**
     * Which of these uploads are re-match jobs, with when their advisory import queued them: a
     * finding a re-match opened, fixed or reopened names the advisory and that time, not an upload.
     */
    async rematches(uploadIds: string[]): Promise<Map<string, string>> {
      if (uploadIds.length === 0) return new Map();
      const rows = await kysely.selectFrom('uploads').select(['id', 'created_at'])
        .where('id', 'in', uploadIds).where('format', '=', REMATCH_FORMAT).execute();
      return new Map(rows.map((r) => [r.id, r.created_at]));
    },

    /** The triage events of a fingerprint, oldest first, with who made them. */
    events(repositoryId: string, fingerprint: string) {
      return kysely.selectFrom('finding_events').leftJoin('users', 'users.id', 'finding_events.actor_id')
        .select(['finding_events.event', 'finding_events.reason', 'finding_events.comment', 'finding_events.created_at', 'users.login as actor'])
        .where('finding_events.repository_id', '=', repositoryId).where('finding_events.fingerprint', '=', fingerprint)
        .orderBy('finding_events.created_at').orderBy('finding_events.id').execute();
    },

    /** triageIn, in a transaction of its own. */
    triage(
      repositoryId: string, fingerprints: string[], change: TriageChange, event: TriageEvent, actorId: string | null, at: string, suppressionId: string | null = null,
    ): Promise<string[] | null> {
      return kysely.transaction().execute((trx) => triageIn(trx, dialect, repositoryId, fingerprints, change, event, actorId, at, { suppressionId }));
    },

    /** The fingerprints of present findings of one repository among `ids`. */
    async fingerprintsOfIds(repositoryId: string, ids: string[]): Promise<string[]> {
      const found = new Set<string>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await kysely.selectFrom('findings').select('fingerprint')
          .where('repository_id', '=', repositoryId).where('id', 'in', ids.slice(i, i + CHUNK)).where('state', '!=', 'fixed').execute();
        for (const row of rows) found.add(row.fingerprint);
      }
      return [...found];
    },

    /** The fingerprints of a ref's present findings that the findings list would show with these filters. */
    async fingerprintsMatching(refId: string, filters: TriageFilters): Promise<string[]> {
      let query = kysely.selectFrom('findings').innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
        .select('findings.fingerprint').distinct().where('findings.ref_id', '=', refId);
      query = filters.state === 'all' ? query.where('findings.state', '!=', 'fixed') : query.where('findings.state', '=', filters.state);
      if (filters.severity) query = query.where('findings.severity_rank', '=', SEVERITY_RANK[filters.severity]);
      if (filters.tool) query = query.where('analyses.tool', '=', filters.tool);
      if (filters.introducedIn) query = query.where('findings.first_upload_id', '=', filters.introducedIn);
      if (filters.reopenedIn) query = query.where('findings.reopened_upload_id', '=', filters.reopenedIn);
      if (filters.q) {
        const q = filters.q;
        query = query.where((eb) => eb.or(['findings.rule_id', 'findings.message', 'findings.file_path'].map((column) => containsIgnoringCase(dialect, column, q))));
      }
      return (await query.execute()).map((r) => r.fingerprint);
    },

    refId: (repositoryId: string, ref: RefName) => refIdOf(kysely, repositoryId, ref),

    /** Dismissals whose `dismissed_until` has passed, by repository. */
    async expiredDismissals(at: string): Promise<Map<string, string[]>> {
      const rows = await kysely.selectFrom('dismissals').select(['repository_id', 'fingerprint'])
        .where('dismissed_until', 'is not', null).where('dismissed_until', '<=', at).execute();
      const byRepository = new Map<string, string[]>();
      for (const row of rows) byRepository.set(row.repository_id, [...(byRepository.get(row.repository_id) ?? []), row.fingerprint]);
      return byRepository;
    },
  };
}
export type FindingStore = ReturnType<typeof findingStore>;

/**
 * Applies a change to fingerprints of one repository under the lock ingest takes: the dismissal
 * (kept per fingerprint, so it holds on every ref and across re-imports), every present finding
 * of those fingerprints on every ref, an event per fingerprint that changed, and the aggregates
 * of the analyses touched. Fixed findings are left alone (their dismissal waits for their
 * return). `source` names the suppression rule or VEX upload that dismisses, if one does. Returns
 * the fingerprints whose findings changed, or null when the repository is gone. Runs in `trx`:
 * ingest applies a VEX upload's statements in the transaction that completes it.
 */
export async function triageIn(
  trx: Transaction<Database>, dialect: Dialect, repositoryId: string, fingerprints: string[], change: TriageChange, event: TriageEvent,
  actorId: string | null, at: string, source: { suppressionId?: string | null; vexUploadId?: string | null } = {},
): Promise<string[] | null> {
  let lock = trx.selectFrom('repos').select('org_id').where('id', '=', repositoryId);
  if (dialect === 'postgres') lock = lock.forUpdate();
  const repo = await lock.executeTakeFirst();
  if (!repo) return null;
  const analyses = await trx.selectFrom('analyses').select(['id', 'ref_id']).where('repository_id', '=', repositoryId).execute();
  const analysisIds = analyses.map((a) => a.id);
  const changed = new Set<string>();
  const touched = new Set<string>();
  for (let i = 0; i < fingerprints.length; i += CHUNK) {
    const chunk = fingerprints.slice(i, i + CHUNK);
    if (change.state === 'dismissed') {
      const rows = chunk.map((fingerprint) => ({
        repository_id: repositoryId, fingerprint, reason: change.reason, comment: change.comment,
        dismissed_by: actorId, dismissed_at: at, dismissed_until: change.until,
        suppression_id: source.suppressionId ?? null, vex_upload_id: source.vexUploadId ?? null,
      }));
      await trx.insertInto('dismissals').values(rows)
        .onConflict((oc) => oc.columns(['repository_id', 'fingerprint']).doUpdateSet((eb) => ({
          reason: eb.ref('excluded.reason'), comment: eb.ref('excluded.comment'), dismissed_by: eb.ref('excluded.dismissed_by'),
          dismissed_at: eb.ref('excluded.dismissed_at'), dismissed_until: eb.ref('excluded.dismissed_until'), suppression_id: eb.ref('excluded.suppression_id'),
          vex_upload_id: eb.ref('excluded.vex_upload_id'),
        })))
        .execute();
      // A new reason or comment on a dismissed finding is a change of its triage too.
      for (const fingerprint of chunk) changed.add(fingerprint);
    } else {
      await trx.deleteFrom('dismissals').where('repository_id', '=', repositoryId).where('fingerprint', 'in', chunk).execute();
    }
    if (analysisIds.length === 0) continue;
    const from = change.state === 'dismissed' ? 'open' : 'dismissed';
    const updated = await trx.updateTable('findings').set({ state: change.state, updated_at: at })
      .where('analysis_id', 'in', analysisIds).where('fingerprint', 'in', chunk).where('state', '=', from)
      .returning(['analysis_id', 'fingerprint']).execute();
    for (const row of updated) {
      touched.add(row.analysis_id);
      changed.add(row.fingerprint);
    }
  }
  if (changed.size > 0) {
    const reason = change.state === 'dismissed' ? change.reason : null;
    const events = [...changed].map((fingerprint) => ({
      id: newId(), repository_id: repositoryId, fingerprint, event, reason, comment: change.comment, actor_id: actorId, created_at: at,
    }));
    for (let i = 0; i < events.length; i += CHUNK) await trx.insertInto('finding_events').values(events.slice(i, i + CHUNK)).execute();
    if (change.state === 'dismissed') {
      await enqueueEvent(trx, {
        orgId: repo.org_id, repositoryId, event: 'finding.dismissed',
        payload: {
          count: changed.size, fingerprints: [...changed].slice(0, WEBHOOK_FINGERPRINTS), reason: change.reason, comment: change.comment,
          until: change.until, by: actorId, suppression_id: source.suppressionId ?? null,
        },
      });
    }
  }
  await recount(trx, [...touched]);
  for (const refId of new Set(analyses.filter((a) => touched.has(a.id)).map((a) => a.ref_id))) await refreshRefTotals(trx, refId);
  if (touched.size > 0) await syncRepoStatus(trx, repositoryId);
  return [...changed];
}

/** The open counts by severity and the dismissed count of each analysis, counted again from its findings. */
async function recount(trx: Transaction<Database>, analysisIds: string[]): Promise<void> {
  for (const analysisId of analysisIds) {
    const rows = await trx.selectFrom('findings').select((eb) => ['state', 'severity', eb.fn.countAll<number>().as('n')])
      .where('analysis_id', '=', analysisId).where('state', 'in', ['open', 'dismissed'])
      .groupBy(['state', 'severity']).execute();
    const count = (state: string, severity?: string) => rows
      .filter((r) => r.state === state && (severity === undefined || r.severity === severity)).reduce((sum, r) => sum + Number(r.n), 0);
    await trx.updateTable('analyses').set({
      open_critical: count('open', 'critical'), open_high: count('open', 'high'), open_medium: count('open', 'medium'),
      open_low: count('open', 'low'), open_info: count('open', 'info'), dismissed: count('dismissed'),
    }).where('id', '=', analysisId).execute();
  }
}
