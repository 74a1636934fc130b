import type { RepoRow } from '../db/schema.js';
import type { RepoWithScan } from './store.js';
import type { RepoJson } from './schema.js';

/** A new repository has no status row yet: it reads as never scanned. */
export function presentRepo(row: RepoRow | RepoWithScan): RepoJson {
  const s = 'state' in row ? row : null;
  const [critical, high, medium, low, info] = [s?.open_critical ?? 0, s?.open_high ?? 0, s?.open_medium ?? 0, s?.open_low ?? 0, s?.open_info ?? 0];
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    url: row.url,
    default_branch: row.default_branch,
    forge_id: row.forge_id,
    full_name: row.full_name,
    visibility: row.visibility,
    archived: row.archived === 1,
    gone: row.gone === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    scan: {
      state: (s?.state ?? 'never_scanned') as RepoJson['scan']['state'],
      last_upload_at: s?.last_upload_at ?? null,
      last_completed_at: s?.last_completed_at ?? null,
      findings: { open: critical + high + medium + low + info, critical, high, medium, low, info },
      components: s?.components ?? 0,
    },
  };
}
