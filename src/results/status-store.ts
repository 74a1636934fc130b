import { sql, type Kysely, type Transaction } from 'kysely';
import type { AnalysisRow, Database } from '../db/schema.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { defaultBranch, sameRef } from '../domain/ref-name.js';
import { openVulnerabilityCounts } from './vulnerabilities.js';
import { knownAliases, vulnerabilityFindings } from './vulnerability-store.js';

type Conn = Kysely<Database> | Transaction<Database>;

/** Which ref of which repository an upload belongs to. */
export interface RefOfUpload {
  repository_id: string;
  ref_kind: string;
  ref_name: string;
}

/**
 * The ref's state from its uploads: pending or processing while any waits, failed when the newest
 * failed, complete once one has completed. Each lookup is one indexed probe. The repository's status
 * row follows when the ref is its default branch.
 */
export async function refreshRefState(
  conn: Conn,
  ref: RefOfUpload,
  times: { lastUploadAt?: string; lastCompletedAt?: string },
): Promise<void> {
  const active = await unfinishedUploadOfRef(conn, ref).executeTakeFirst();
  let state: string;
  if (active) {
    state = active.status;
  } else {
    const newest = await uploadsOfRef(conn, ref).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    state = newest ? newest.status : 'never_scanned';
  }
  const values = { state, ...definedTimes(times) };
  await conn.insertInto('refs')
    .values({
      id: newId(), repository_id: ref.repository_id, kind: ref.ref_kind, name: ref.ref_name, base_ref: null, state,
      // Only a ref that retention removed while its upload waited is created here rather than on
      // accept: its upload is being worked on now, which keeps retention off it for a while again.
      last_upload_at: times.lastUploadAt ?? now(), last_completed_at: times.lastCompletedAt ?? null,
      open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0, fixed_total: 0,
    })
    .onConflict((oc) => oc.columns(['repository_id', 'kind', 'name']).doUpdateSet(values))
    .execute();
  await syncRepoStatus(conn, ref.repository_id, { kind: ref.ref_kind, name: ref.ref_name });
}

const uploadsOfRef = (conn: Conn, ref: RefOfUpload) => conn.selectFrom('uploads').select('status')
  .where('repository_id', '=', ref.repository_id).where('ref_kind', '=', ref.ref_kind).where('ref_name', '=', ref.ref_name);

/**
 * The ref's processing upload, else a pending one. The statuses are literals so that the planner
 * reads the index of unfinished uploads (migration 0024), not every upload the ref ever had.
 */
export function unfinishedUploadOfRef(conn: Conn, ref: RefOfUpload) {
  return uploadsOfRef(conn, ref).where(sql<boolean>`status in ('pending', 'processing')`).orderBy('status', 'desc').limit(1);
}

/** An analysis as the status lists it: its open counts and its latest upload's status. */
export type AnalysisStatus = Pick<AnalysisRow, 'tool' | 'category' | 'format' | 'last_upload_id' | 'completed_at' | 'dismissed'
  | 'open_critical' | 'open_high' | 'open_medium' | 'open_low' | 'open_info'> & { upload_status: string };

const TOTALS = ['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'components', 'fixed_total'] as const;

/**
 * Sums the ref's analyses into its row, and keeps their list as the status shows them (`analyses`,
 * JSON), so that the status read, far more frequent than this, reads one column: a handful of
 * rows, whatever the findings. Runs after every change to an analysis (ingest, triage, delete).
 * The open vulnerabilities are counted again unless the caller knows that no finding naming a
 * package changed (`vulnerabilities: false`): that count reads every such finding of the ref, 0.1-0.2 s
 * beside an SBOM's 10,000 advisory matches, which an upload that changes none of them need not pay.
 */
export async function refreshRefTotals(conn: Conn, refId: string, { vulnerabilities = true } = {}): Promise<void> {
  const analyses = await conn.selectFrom('analyses').leftJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
    .select(['analyses.tool', 'analyses.category', 'analyses.format', 'analyses.last_upload_id', 'analyses.completed_at', 'analyses.dismissed',
      ...TOTALS.map((column) => `analyses.${column}` as const), 'uploads.status as upload_status'])
    .where('analyses.ref_id', '=', refId)
    .orderBy('analyses.tool').orderBy('analyses.category').orderBy('analyses.format')
    .execute();
  const totals = Object.fromEntries(TOTALS.map((column) => [column, analyses.reduce((sum, a) => sum + Number(a[column]), 0)]));
  const listed: AnalysisStatus[] = analyses.flatMap((a) => (a.upload_status === null ? [] : [{
    tool: a.tool, category: a.category, format: a.format, last_upload_id: a.last_upload_id, completed_at: a.completed_at,
    open_critical: Number(a.open_critical), open_high: Number(a.open_high), open_medium: Number(a.open_medium), open_low: Number(a.open_low),
    open_info: Number(a.open_info), dismissed: Number(a.dismissed), upload_status: a.upload_status,
  }]));
  await conn.updateTable('refs').set({
    ...totals,
    ...(vulnerabilities ? { vulnerabilities: await openVulnerabilities(conn, refId) } : {}),
    analyses: JSON.stringify(listed),
  }).where('id', '=', refId).execute();
}

/** A ref's open vulnerabilities by severity, as JSON; null when it has none (no finding names a package). */
async function openVulnerabilities(conn: Conn, refId: string): Promise<string | null> {
  const findings = await vulnerabilityFindings(conn, refId, ['open']);
  if (findings.length === 0) return null;
  return JSON.stringify(openVulnerabilityCounts(findings, await knownAliases(conn, findings)));
}

/**
 * The repository's status row (what the dashboard, repository lists and badges read) is a copy of its
 * default branch's ref row, so those reads stay one primary-key row. A repository whose default
 * branch never received an upload has none, and reads as never scanned.
 */
export async function syncRepoStatus(conn: Conn, repositoryId: string, changed?: { kind: string; name: string }): Promise<void> {
  const repo = await conn.selectFrom('repos').select('default_branch').where('id', '=', repositoryId).executeTakeFirst();
  if (!repo) return;
  const defaultRef = defaultBranch(repo.default_branch);
  // Another ref's change leaves the row alone: fewer writes to the row every upload of the repository touches.
  if (changed && !sameRef(changed, defaultRef)) return;
  const copied = ['state', 'last_upload_at', 'last_completed_at', 'open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'components', 'vulnerabilities'] as const;
  await conn.insertInto('repo_status')
    .columns(['repository_id', ...copied])
    .expression(conn.selectFrom('refs').select(['repository_id', ...copied])
      .where('repository_id', '=', repositoryId).where('kind', '=', 'branch').where('name', '=', defaultRef.name))
    .onConflict((oc) => oc.column('repository_id').doUpdateSet((eb) => ({
      state: eb.ref('excluded.state'),
      last_upload_at: eb.ref('excluded.last_upload_at'),
      last_completed_at: eb.ref('excluded.last_completed_at'),
      open_critical: eb.ref('excluded.open_critical'),
      open_high: eb.ref('excluded.open_high'),
      open_medium: eb.ref('excluded.open_medium'),
      open_low: eb.ref('excluded.open_low'),
      open_info: eb.ref('excluded.open_info'),
      components: eb.ref('excluded.components'),
      vulnerabilities: eb.ref('excluded.vulnerabilities'),
    })))
    .execute();
}

function definedTimes(times: { lastUploadAt?: string; lastCompletedAt?: string }) {
  return {
    ...(times.lastUploadAt ? { last_upload_at: times.lastUploadAt } : {}),
    ...(times.lastCompletedAt ? { last_completed_at: times.lastCompletedAt } : {}),
  };
}
