import { Type, type Static } from 'typebox';
import type { RepoRow } from '../db/schema.js';
import type { RepoWithScan } from './store.js';
import { PageQuery } from '../http/pagination.js';
import { NameField } from '../orgs/names.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const ScanSummarySchema = Type.Object({
  state: Type.Enum(['never_scanned', 'pending', 'processing', 'complete', 'failed']),
  last_upload_at: Nullable(Type.String({ format: 'date-time' })),
  last_completed_at: Nullable(Type.String({ format: 'date-time' })),
  findings: Type.Object({
    open: Type.Integer(), critical: Type.Integer(), high: Type.Integer(), medium: Type.Integer(), low: Type.Integer(), info: Type.Integer(),
  }),
  components: Type.Integer(),
}, { description: 'The scan status at a glance (GET /repos/{id}/status has the analyses too).' });

export const RepoSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  url: Nullable(Type.String()),
  default_branch: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  scan: ScanSummarySchema,
}, { title: 'Repository' });
export type RepoJson = Static<typeof RepoSchema>;

export const CreateRepoBody = Type.Object({
  name: NameField('within its organization'),
  url: Type.Optional(Nullable(Type.String({
    maxLength: 2000,
    format: 'uri',
    // A host is required: "http://" alone is a valid URI but names no repository.
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+',
    description: 'The http(s) URL of the repository on its forge.',
  }))),
  default_branch: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
}, { additionalProperties: false });
export type CreateRepoBody = Static<typeof CreateRepoBody>;

export const RepoListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Only repositories whose name contains this, ignoring case.' })),
});

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
