import { presentFinding } from '../results/presenter.js';
import type { FindingWithAnalysis } from '../results/store.js';
import { refKey } from '../domain/ref-name.js';
import type { FindingLocation } from '../domain/scan.js';
import type { FindingDetailJson, FindingEventJson } from './schema.js';

type DetailRow = FindingWithAnalysis & {
  ref_kind: string; ref_name: string; repository_url: string | null; upload_commit_sha: string | null; help: string | null;
};

type EventRow = { event: string; reason: string | null; comment: string | null; created_at: string; actor: string | null };

export function presentFindingDetail(row: DetailRow): FindingDetailJson {
  return {
    ...presentFinding(row),
    ref: refKey({ kind: row.ref_kind as 'branch', name: row.ref_name }),
    help: row.help,
    locations: (row.locations ? (JSON.parse(row.locations) as FindingLocation[]) : [{ path: row.file_path, startLine: row.start_line, endLine: row.end_line }])
      .filter((l) => l.path !== null || l.startLine !== null)
      .map((l) => ({ path: l.path, start_line: l.startLine, end_line: l.endLine })),
    snippet: row.snippet,
    location_url: locationUrl(row),
  };
}

/**
 * The row's own transitions (latest of each) merged with the stored triage events, oldest first. A
 * transition made by a re-match (`rematches`: its job's id and when its import queued it) names the
 * advisory, since no upload made it.
 */
export function presentHistory(row: DetailRow, events: EventRow[], rematches: ReadonlyMap<string, string>): FindingEventJson[] {
  const byIngest = (event: 'opened' | 'reopened' | 'fixed', at: string, uploadId: string | null): FindingEventJson => {
    const importedAt = uploadId === null ? undefined : rematches.get(uploadId);
    return importedAt === undefined
      ? { event, at, by: null, upload_id: uploadId, advisory: null, reason: null, comment: null }
      : { event, at, by: null, upload_id: null, advisory: { id: row.rule_id, imported_at: importedAt }, reason: null, comment: null };
  };
  const fromUploads = [byIngest('opened', row.created_at, row.first_upload_id)];
  if (row.reopened_at) fromUploads.push(byIngest('reopened', row.reopened_at, row.reopened_upload_id));
  if (row.fixed_at) fromUploads.push(byIngest('fixed', row.fixed_at, row.fixed_upload_id));
  const triage = events.map((e): FindingEventJson => ({
    event: e.event as 'dismissed', at: e.created_at, by: e.actor, upload_id: null, advisory: null, reason: e.reason as 'false_positive' | null, comment: e.comment,
  }));
  return [...fromUploads, ...triage].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/**
 * GitHub, Gitea and Bitbucket-style `/blob/<commit>/<path>#L<n>`; GitLab's `/-/blob/`. Only for an
 * http(s) repository URL, a file path and the commit the upload named.
 */
function locationUrl(row: DetailRow): string | null {
  if (!row.repository_url || !row.upload_commit_sha || !row.file_path) return null;
  let base: URL;
  try {
    base = new URL(row.repository_url);
  } catch {
    return null;
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') return null;
  const root = base.href.replace(/\/+$/, '').replace(/\.git$/, '');
  const blob = base.hostname.includes('gitlab') ? '-/blob' : 'blob';
  const path = row.file_path.replace(/^\.?\//, '').split('/').map(encodeURIComponent).join('/');
  const line = row.start_line ? `#L${row.start_line}` : '';
  return `${root}/${blob}/${encodeURIComponent(row.upload_commit_sha)}/${path}${line}`;
}
