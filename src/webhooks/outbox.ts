import type { Kysely, Transaction } from 'kysely';
import type { Database, UploadRow, WebhookDeliveryRow, WebhookRow } from '../db/schema.js';
import type { Severity } from '../domain/scan.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { zeroCounts, type ImportCounts, type SeverityCounts } from '../domain/changes.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { DeliveredEventName, EventPayload, FindingSummary, WebhookEventName } from './events.js';

type Executor = Transaction<Database> | Kysely<Database>;

/** Findings listed in one delivery; the total says how many there were. */
const MAX_LISTED_FINDINGS = 100;

export interface FindingSet {
  /** Most severe first, at least the first MAX_LISTED_FINDINGS at or above the rank asked for. */
  items: FindingSummary[];
  bySeverity: SeverityCounts;
}

export interface OutboxEvent {
  orgId: string;
  repositoryId: string | null;
  event: WebhookEventName;
  /** Event-specific fields, sent under `data`. */
  payload: Record<string, unknown>;
  /** The page in Scanyard the event is about; the repository's (or the org's) when left out. */
  path?: string;
  /**
   * For events about findings: loads them, at or above `minRank` (the lowest min_severity among the
   * hooks that want the event). A hook with nothing at or above its own min_severity gets no delivery.
   */
  findings?: (minRank: number) => Promise<FindingSet>;
}

/**
 * Writes one delivery per active hook that wants this event, in the caller's transaction: the event
 * and its deliveries commit together or not at all. Returns how many were written.
 */
export async function enqueueEvent(trx: Executor, event: OutboxEvent): Promise<number> {
  const hooks = (await trx.selectFrom('webhooks').selectAll().where('org_id', '=', event.orgId).where('active', '=', 1).execute())
    .filter((hook) => wants(hook, event.event, event.repositoryId));
  if (hooks.length === 0) return 0;
  const minRank = Math.min(...hooks.map((h) => rankOf(h.min_severity)));
  const findings = event.findings ? await event.findings(minRank) : null;
  const base = await envelope(trx, event.orgId, event.repositoryId, event.event, event.path);
  const rows = hooks.flatMap((hook) => {
    const payload: EventPayload = { ...base, data: event.payload };
    if (findings) {
      const listed = forHook(findings, rankOf(hook.min_severity));
      if (listed.total === 0) return [];
      payload.findings = listed;
    }
    return [deliveryRow(hook.id, payload)];
  });
  if (rows.length) await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.length;
}

/** The `ping` every new hook receives, whatever it subscribed to. */
export async function enqueuePing(trx: Executor, hook: WebhookRow): Promise<WebhookDeliveryRow> {
  const base = await envelope(trx, hook.org_id, null, 'ping', `/orgs/${hook.org_id}`);
  const payload: EventPayload = {
    ...base,
    data: { hook: { id: hook.id, events: JSON.parse(hook.events) as string[], format: hook.format, min_severity: hook.min_severity } },
  };
  return trx.insertInto('webhook_deliveries').values(deliveryRow(hook.id, payload)).returningAll().executeTakeFirstOrThrow();
}

/** upload.completed, and findings.new for its new and reopened findings; inside the ingest transaction. */
export async function enqueueUploadCompleted(trx: Executor, upload: UploadRow, counts: ImportCounts): Promise<void> {
  const repo = await trx.selectFrom('repos')
    .leftJoin('repo_status', 'repo_status.repository_id', 'repos.id')
    .select(['repos.org_id', 'open_critical', 'open_high', 'open_medium', 'open_low', 'open_info'])
    .where('repos.id', '=', upload.repository_id).executeTakeFirst();
  if (!repo) return;
  const uploadFields = { id: upload.id, format: upload.format, category: upload.category, commit_sha: upload.commit_sha, ref: upload.ref };
  await enqueueEvent(trx, {
    orgId: repo.org_id, repositoryId: upload.repository_id, event: 'upload.completed',
    payload: {
      upload: uploadFields,
      counts,
      open_by_severity: {
        critical: repo.open_critical ?? 0, high: repo.open_high ?? 0, medium: repo.open_medium ?? 0, low: repo.open_low ?? 0, info: repo.open_info ?? 0,
      },
    },
  });
  if (counts.new + counts.reopened === 0) return;
  await enqueueEvent(trx, {
    orgId: repo.org_id, repositoryId: upload.repository_id, event: 'findings.new',
    payload: { upload: uploadFields, new: counts.new, reopened: counts.reopened },
    findings: (minRank) => newFindingsOf(trx, upload, minRank),
  });
}

/** upload.failed, in the transaction that marks the upload failed. */
export async function enqueueUploadFailed(trx: Executor, upload: UploadRow, reason: string): Promise<void> {
  const repo = await trx.selectFrom('repos').select('org_id').where('id', '=', upload.repository_id).executeTakeFirst();
  if (!repo) return;
  await enqueueEvent(trx, {
    orgId: repo.org_id, repositoryId: upload.repository_id, event: 'upload.failed',
    payload: { upload: { id: upload.id, format: upload.format, category: upload.category, commit_sha: upload.commit_sha, ref: upload.ref }, error: reason },
  });
}

/**
 * advisory.matched: a re-match after an advisory import or sync opened findings in a repository that
 * uploaded nothing (sent instead of upload.completed, since nobody uploaded); inside its transaction.
 * Not sent when the re-match opened nothing.
 */
export async function enqueueAdvisoryMatched(trx: Executor, upload: UploadRow, counts: ImportCounts): Promise<void> {
  if (counts.new + counts.reopened === 0) return;
  const repo = await trx.selectFrom('repos').select('org_id').where('id', '=', upload.repository_id).executeTakeFirst();
  if (!repo) return;
  const opened = await trx.selectFrom('findings').select('rule_id').distinct()
    .where('repository_id', '=', upload.repository_id).where('state', '=', 'open')
    .where((eb) => eb.or([eb('first_upload_id', '=', upload.id), eb('reopened_upload_id', '=', upload.id)]))
    .orderBy('rule_id').limit(MAX_LISTED_FINDINGS).execute();
  await enqueueEvent(trx, {
    orgId: repo.org_id, repositoryId: upload.repository_id, event: 'advisory.matched',
    payload: { ref: upload.ref, new: counts.new, reopened: counts.reopened, advisories: opened.map((r) => r.rule_id) },
    findings: (minRank) => newFindingsOf(trx, upload, minRank),
  });
}

/**
 * The findings this upload opened: inserted by it, or reopened by it. Each side of the OR is an index
 * lookup (findings_first_upload, findings_reopened_upload); a side that compared columns across a
 * join read every finding of every repository, inside the ingest transaction, on each upload.
 */
async function newFindingsOf(trx: Executor, upload: UploadRow, minRank: number): Promise<FindingSet> {
  const opened = trx.selectFrom('findings')
    .where('findings.repository_id', '=', upload.repository_id)
    .where('findings.state', '=', 'open')
    .where((eb) => eb.or([eb('findings.first_upload_id', '=', upload.id), eb('findings.reopened_upload_id', '=', upload.id)]));
  const [counts, items] = await Promise.all([
    opened.select(['findings.severity', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('findings.severity').execute(),
    opened.select([
      'findings.id', 'findings.rule_id', 'findings.message', 'findings.severity', 'findings.file_path', 'findings.start_line',
      'findings.package_name', 'findings.package_version',
    ]).where('findings.severity_rank', '>=', minRank)
      .orderBy('findings.severity_rank', 'desc').orderBy('findings.id').limit(MAX_LISTED_FINDINGS).execute(),
  ]);
  const bySeverity = zeroCounts();
  for (const row of counts) bySeverity[row.severity as Severity] = Number(row.n);
  return { bySeverity, items: items.map((f) => ({ ...f, severity: f.severity as Severity })) };
}

function wants(hook: WebhookRow, event: WebhookEventName, repositoryId: string | null): boolean {
  if (!(JSON.parse(hook.events) as string[]).includes(event)) return false;
  if (hook.repository_ids === null) return true;
  return repositoryId !== null && (JSON.parse(hook.repository_ids) as string[]).includes(repositoryId);
}

function rankOf(severity: string): number {
  return SEVERITY_RANK[severity as Severity] ?? 0;
}

function forHook(findings: FindingSet, minRank: number): NonNullable<EventPayload['findings']> {
  const bySeverity = zeroCounts();
  let total = 0;
  for (const [severity, n] of Object.entries(findings.bySeverity) as [Severity, number][]) {
    if (SEVERITY_RANK[severity] < minRank) continue;
    bySeverity[severity] = n;
    total += n;
  }
  const items = findings.items.filter((f) => SEVERITY_RANK[f.severity] >= minRank).slice(0, MAX_LISTED_FINDINGS);
  return { total, by_severity: bySeverity, items };
}

async function envelope(trx: Executor, orgId: string, repositoryId: string | null, event: DeliveredEventName, path?: string): Promise<Omit<EventPayload, 'data'>> {
  const org = await trx.selectFrom('orgs').select(['id', 'name']).where('id', '=', orgId).executeTakeFirstOrThrow();
  const repository = repositoryId === null ? null
    : (await trx.selectFrom('repos').select(['id', 'name']).where('id', '=', repositoryId).executeTakeFirst()) ?? null;
  return {
    event, created_at: now(), org, repository,
    path: path ?? (repository ? `/repos/${repository.id}` : `/orgs/${org.id}`),
  };
}

function deliveryRow(webhookId: string, payload: EventPayload) {
  return {
    id: newId(), webhook_id: webhookId, event: payload.event, payload: JSON.stringify(payload),
    status: 'pending', next_attempt_at: payload.created_at, created_at: payload.created_at,
  };
}
