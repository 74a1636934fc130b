import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database, UploadRow } from '../db/schema.js';
import type { Severity } from '../domain/scan.js';
import { zeroCounts, type SeverityChanges } from '../domain/changes.js';
import { defaultBranch } from '../domain/ref-name.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { refIdOf } from '../refs/store.js';
import { diffSideOf, openInSameAnalysisOf } from '../results/store.js';
import { diffComponents, diffCounts } from '../results/components-diff.js';
import { inKev } from '../advisories/priorities-store.js';
import type { Gate } from '../gates/types.js';
import { DEFAULT_PR_FEEDBACK, type Conclusion, type DeliveryKind, type PrFeedback, type SbomDiffCounts, type Verdict, type VerdictFinding } from './types.js';

/** The formats of an SBOM analysis: what a dependency diff compares. */
const SBOM_FORMATS = ['cyclonedx', 'spdx'];

type Trx = Transaction<Database>;

/** Annotations GitHub takes on one check run, in all (50 per request). */
export const MAX_ANNOTATED = 1000;

/** The marker that finds Scanyard's one comment on a pull request again. */
export const COMMENT_MARKER = '<!-- scanyard:verdict -->';

interface Target {
  repository: Verdict['repository'];
  feedback: PrFeedback;
  pullRequest: number | null;
  /** Deliveries of one thread go out in order: the pull request (or branch) and the category. */
  thread: string;
}

/** A pull request, or a push to the default branch, of a repository the forge knows; null for anything else. */
async function targetOf(trx: Trx, upload: UploadRow): Promise<Target | null> {
  const row = await trx.selectFrom('repos')
    .leftJoin('repo_pr_feedback', 'repo_pr_feedback.repository_id', 'repos.id')
    .leftJoin('org_pr_feedback', 'org_pr_feedback.org_id', 'repos.org_id')
    .select(['repos.id', 'repos.name', 'repos.full_name', 'repos.forge_id', 'repos.default_branch', 'repo_pr_feedback.feedback as own', 'org_pr_feedback.feedback as inherited'])
    .where('repos.id', '=', upload.repository_id).executeTakeFirst();
  if (!row?.full_name) return null;
  let pullRequest: number | null = null;
  if (upload.ref_kind === 'pull_request') pullRequest = Number(upload.ref_name.slice('pr/'.length));
  else if (upload.ref_kind !== 'branch' || upload.ref_name !== defaultBranch(row.default_branch).name || !upload.commit_sha) return null;
  return {
    repository: { id: row.id, name: row.name, full_name: row.full_name, forge_id: row.forge_id },
    feedback: prFeedbackOf(row.own, row.inherited),
    pullRequest,
    thread: `${upload.ref_name}\n${upload.category}`,
  };
}

/** The repository's own setting, else its organisation's, else the defaults. */
export function prFeedbackOf(own: string | null, org: string | null): PrFeedback {
  const chosen = own ?? org;
  return chosen ? { ...DEFAULT_PR_FEEDBACK, ...(JSON.parse(chosen) as Partial<PrFeedback>) } : DEFAULT_PR_FEEDBACK;
}

/** When an upload arrives: its check run, created `in_progress` (in the transaction that stores the upload). */
export async function enqueueCheckStarted(trx: Trx, upload: UploadRow): Promise<void> {
  const target = await targetOf(trx, upload);
  if (!target?.feedback.checks) return;
  await insertDelivery(trx, target, upload, 'check_run', {
    ...baseVerdict(target, upload), state: 'in_progress', conclusion: null, stale_base: null, gate: null,
  });
}

/** An upload that failed: its check run (if one was started) completes `neutral`, naming why. */
export async function enqueueCheckFailed(trx: Trx, upload: UploadRow, reason: string): Promise<void> {
  const target = await targetOf(trx, upload);
  if (!target?.feedback.checks) return;
  await insertDelivery(trx, target, upload, 'check_run', {
    ...baseVerdict(target, upload), state: 'completed', conclusion: 'neutral', gate: null,
    stale_base: `The upload could not be processed: ${reason}`,
  });
}

/**
 * The verdict on a judged upload: its check run completed, and, for a pull request, its comment when
 * the verdict or the new findings changed since the last one (or always, as configured). Runs after
 * the gate, in the same transaction: the verdict and its deliveries commit with the upload.
 */
export async function enqueueVerdict(trx: Trx, upload: UploadRow, changes: SeverityChanges): Promise<void> {
  const target = await targetOf(trx, upload);
  if (!target) return;
  const { feedback } = target;
  const commenting = target.pullRequest !== null && feedback.comment !== 'off';
  if (!feedback.checks && !commenting) return;
  const recorded = await gateOfThread(trx, upload);
  const staleBase = target.pullRequest !== null ? await staleBaseOf(trx, upload) : null;
  const gate = recorded && staleBase ? withoutFailOnNew(recorded) : recorded;
  const verdict: Verdict = {
    ...baseVerdict(target, upload), state: 'completed',
    conclusion: conclusionOf(gate, staleBase !== null), stale_base: staleBase, gate,
    new_findings: await newFindings(trx, upload, target.pullRequest !== null),
    fixed: { total: Object.values(changes.fixed).reduce((a, b) => a + b, 0), by_severity: changes.fixed },
    sbom_diff: target.pullRequest !== null ? await sbomDiffOf(trx, upload) : null,
  };
  if (feedback.checks) await insertDelivery(trx, target, upload, 'check_run', verdict);
  if (!commenting) return;

  const thread = await trx.selectFrom('forge_threads').selectAll()
    .where('repository_id', '=', target.repository.id).where('thread', '=', target.thread).executeTakeFirst();
  // An earlier upload finishing after a later one: the later one's comment stands.
  if (thread && (thread.upload_created_at > upload.created_at || (thread.upload_created_at === upload.created_at && thread.upload_id > upload.id))) return;
  const digest = digestOf(verdict);
  const changed = thread?.digest !== digest;
  if (thread) {
    await trx.updateTable('forge_threads').set({ digest, upload_created_at: upload.created_at, upload_id: upload.id })
      .where('repository_id', '=', target.repository.id).where('thread', '=', target.thread).execute();
  } else {
    await trx.insertInto('forge_threads').values({
      repository_id: target.repository.id, thread: target.thread, comment_id: null, digest, upload_created_at: upload.created_at, upload_id: upload.id,
    }).execute();
  }
  if (changed || feedback.comment === 'always') await insertDelivery(trx, target, upload, 'comment', verdict);
}

function baseVerdict(target: Target, upload: UploadRow): Pick<Verdict, 'repository' | 'upload' | 'pull_request' | 'base_ref' | 'path' | 'new_findings' | 'fixed'> {
  return {
    repository: target.repository,
    upload: {
      id: upload.id, category: upload.category, commit_sha: upload.commit_sha, created_at: upload.created_at,
      // A pull request's head ref (refs/pull/N/head, refs/merge-requests/N/head) was scanned at its head commit.
      head_sha: upload.head_sha ?? (upload.ref !== null && /\/head$/.test(upload.ref) ? upload.commit_sha : null),
    },
    pull_request: target.pullRequest,
    base_ref: upload.base_ref,
    path: `/repos/${target.repository.id}?ref=${encodeURIComponent(upload.ref_name)}`,
    new_findings: { total: 0, by_severity: zeroCounts(), kev: 0, items: [] },
    fixed: { total: 0, by_severity: zeroCounts() },
  };
}

async function insertDelivery(trx: Trx, target: Target, upload: UploadRow, kind: DeliveryKind, verdict: Verdict): Promise<void> {
  const at = now();
  await trx.insertInto('forge_deliveries').values({
    id: newId(), repository_id: target.repository.id, upload_id: upload.id, kind, thread: target.thread,
    payload: JSON.stringify(verdict), status: 'pending', next_attempt_at: at, created_at: at,
    external_id: null, external_state: null, lease_until: null, last_attempt_at: null, last_status_code: null,
    last_duration_ms: null, last_response_body: null, last_error: null, completed_at: null,
  }).execute();
}

/**
 * Why findings cannot be told new, in one line: the base branch has no analysis, or (when CI gave the
 * merge base) its latest analysis is of another commit. Null when the comparison holds.
 */
async function staleBaseOf(trx: Trx, upload: UploadRow): Promise<string | null> {
  const base = upload.base_ref ?? 'main';
  const refId = await refIdOf(trx, upload.repository_id, { kind: 'branch', name: base });
  const latest = refId === undefined ? undefined : await trx.selectFrom('analyses').innerJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
    .select(['uploads.commit_sha', 'analyses.completed_at'])
    .where('analyses.ref_id', '=', refId).where('analyses.category', '=', upload.category)
    .orderBy('analyses.completed_at', 'desc').limit(1).executeTakeFirst();
  if (!latest) return `${base} has no analysis${upload.category ? ` in category ${upload.category}` : ''}: findings may not be new.`;
  if (!upload.base_sha) return null;
  const analysed = latest.commit_sha;
  if (analysed && (analysed.startsWith(upload.base_sha) || upload.base_sha.startsWith(analysed))) return null;
  return `${base} was last analysed at ${analysed ? analysed.slice(0, 7) : 'an unknown commit'} (${latest.completed_at.slice(0, 10)}), `
    + `not at this branch's base ${upload.base_sha.slice(0, 7)}: findings may not be new.`;
}

/**
 * The verdict of the pull request (or branch) in this category as it now stands: the gates of the
 * latest upload of each of its analyses, combined (the worst wins). CI often sends several files per
 * push (SARIF, then an SBOM): judged one upload at a time, the check run named Scanyard would say
 * whatever the last file said, and the comment would flip between them.
 */
async function gateOfThread(trx: Trx, upload: UploadRow): Promise<Gate | null> {
  const refId = await refIdOf(trx, upload.repository_id, { kind: upload.ref_kind as 'branch' | 'pull_request' | 'tag', name: upload.ref_name });
  const rows = refId === undefined ? [] : await trx.selectFrom('analyses').innerJoin('uploads', 'uploads.id', 'analyses.last_upload_id')
    .select(['uploads.id', 'uploads.gate']).distinct()
    .where('analyses.ref_id', '=', refId).where('analyses.category', '=', upload.category).where('uploads.gate', 'is not', null)
    .execute();
  const own = await trx.selectFrom('uploads').select('gate').where('id', '=', upload.id).executeTakeFirst();
  const gates = [own?.gate, ...rows.filter((r) => r.id !== upload.id).map((r) => r.gate)].filter((g): g is string => Boolean(g)).map((g) => JSON.parse(g) as Gate);
  if (gates.length === 0) return null;
  const seen = new Set<string>();
  const violations = gates.flatMap((g) => g.violations).filter((v) => {
    const key = `${v.rule}\u0000${v.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const status = gates.some((g) => g.status === 'fail') ? 'fail' : gates.some((g) => g.status === 'warn') ? 'warn' : 'pass';
  return { status, violations };
}

/** A stale base cannot tell what is new: fail_on_new is left out, every other rule still stands. */
function withoutFailOnNew(gate: Gate): Gate {
  const violations = gate.violations.filter((v) => v.rule !== 'fail_on_new');
  const status = violations.some((v) => v.level === 'fail') ? 'fail' : violations.length > 0 ? 'warn' : 'pass';
  return { status, violations };
}

function conclusionOf(gate: Gate | null, stale: boolean): Conclusion {
  if (gate?.status === 'fail') return 'failure';
  if (stale || gate?.status === 'warn') return 'neutral';
  return 'success';
}

/**
 * The findings the verdict is about: for a pull request, open in its analyses of this category and not
 * open on the base branch (as fail_on_new counts them), whichever upload of the push brought them; for
 * a push, what the upload opened or reopened.
 */
async function newFindings(trx: Trx, upload: UploadRow, pullRequest: boolean): Promise<Verdict['new_findings']> {
  let query = trx.selectFrom('findings').innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
    .where('analyses.repository_id', '=', upload.repository_id).where('findings.state', '=', 'open');
  if (pullRequest) {
    const refId = await refIdOf(trx, upload.repository_id, { kind: 'pull_request', name: upload.ref_name });
    query = query.where('analyses.ref_id', '=', refId ?? '').where('analyses.category', '=', upload.category);
    const baseRefId = upload.base_ref === null ? undefined : await refIdOf(trx, upload.repository_id, { kind: 'branch', name: upload.base_ref });
    if (baseRefId !== undefined) query = query.where((eb) => eb.not(eb.exists(openInSameAnalysisOf(eb, baseRefId))));
  } else {
    query = query.where((eb) => eb.or([eb('findings.first_upload_id', '=', upload.id), eb('findings.reopened_upload_id', '=', upload.id)]));
  }
  const [counts, kev, rows] = await Promise.all([
    query.select((eb) => ['findings.severity', eb.fn.countAll<number>().as('n')]).groupBy('findings.severity').execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).where(inKev()).executeTakeFirstOrThrow(),
    query.select([
      'findings.rule_id', 'findings.message', 'findings.severity', 'findings.file_path', 'findings.start_line', 'findings.end_line',
      'findings.package_name', 'findings.package_version', 'findings.fixed_versions', inKev().as('kev'),
    ]).orderBy('findings.severity_rank', 'desc').orderBy('findings.file_path').orderBy('findings.start_line').orderBy('findings.id')
      .limit(MAX_ANNOTATED).execute(),
  ]);
  const bySeverity = zeroCounts();
  for (const row of counts) bySeverity[row.severity as Severity] = Number(row.n);
  const items: VerdictFinding[] = rows.map((f) => ({
    rule_id: f.rule_id, message: f.message, severity: f.severity as Severity, path: f.file_path, start_line: f.start_line, end_line: f.end_line,
    package_name: f.package_name, package_version: f.package_version,
    fixed_versions: f.fixed_versions ? (JSON.parse(f.fixed_versions) as string[]) : [], kev: Boolean(f.kev),
  }));
  return { total: Object.values(bySeverity).reduce((a, b) => a + b, 0), by_severity: bySeverity, kev: Number(kev.n), items };
}

/**
 * The pull request's dependency changes, counted as GET /repos/{id}/components/diff counts them: its
 * SBOM analyses of this category against the base branch's, when both have one.
 */
async function sbomDiffOf(trx: Trx, upload: UploadRow): Promise<SbomDiffCounts | null> {
  const side = async (refId: string | undefined) => {
    if (refId === undefined) return null;
    const analyses = await trx.selectFrom('analyses').select('id')
      .where('ref_id', '=', refId).where('category', '=', upload.category).where('format', 'in', SBOM_FORMATS).execute();
    return analyses.length === 0 ? null : diffSideOf(trx, refId, analyses.map((a) => a.id));
  };
  const head = await side(await refIdOf(trx, upload.repository_id, { kind: 'pull_request', name: upload.ref_name }));
  if (!head) return null;
  const base = await side(await refIdOf(trx, upload.repository_id, { kind: 'branch', name: upload.base_ref ?? 'main' }));
  return base ? diffCounts(diffComponents(base.components, head.components, base.findings, head.findings)) : null;
}

/** What a comment says, in short: the conclusion, why the base could not be used, which findings are new, and the dependency changes. */
function digestOf(verdict: Verdict): string {
  const findings = verdict.new_findings.items.map((f) => [f.rule_id, f.path, f.start_line, f.package_name, f.package_version].join('\u0000')).sort();
  return createHash('sha256').update(JSON.stringify([verdict.conclusion, verdict.stale_base, verdict.new_findings.total, findings, verdict.sbom_diff ?? null])).digest('hex');
}
