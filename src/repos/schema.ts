import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Nullable, Time, Timestamps } from '../http/schemas.js';
import { NameField } from '../orgs/names.js';
import { PrFeedbackSchema } from '../orgs/schema.js';

const ScanSummarySchema = Type.Object({
  state: Type.Enum(['never_scanned', 'pending', 'processing', 'complete', 'failed']),
  last_upload_at: Nullable(Time),
  last_completed_at: Nullable(Time),
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
  forge_id: Nullable(Type.String({ description: "The forge's immutable id, when its organization follows the forge: renames and transfers keep it." })),
  full_name: Nullable(Type.String({ description: 'owner/name as the forge last said (GitLab: the full path).' })),
  visibility: Nullable(Type.String({ description: "The forge's visibility: public, private or internal." })),
  archived: Type.Boolean({ description: 'Archived on the forge.' }),
  gone: Type.Boolean({ description: 'Deleted on the forge; kept here with its results until an owner deletes it.' }),
  ...Timestamps,
  scan: ScanSummarySchema,
  /** The repository's own pr_feedback; null follows its organization's. Shown by POST, GET and PUT of one repository. */
  pr_feedback: Type.Optional(Nullable(PrFeedbackSchema)),
}, { title: 'Repository' });

export const UpdateRepoBody = Type.Object({
  pr_feedback: Type.Optional(Nullable(PrFeedbackSchema)),
}, { additionalProperties: false, description: 'Fields left out keep their value; pr_feedback null follows the organization again.' });
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

export const RepoListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Only repositories whose name contains this, ignoring case.' })),
  sort: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('critical')], {
    description: '`created` (the default): oldest first. `critical`: most open critical findings on the default branch first, then most high, then by name.',
  })),
});

export const RepoLookupQuery = Type.Object({
  org: Type.String({ minLength: 1, maxLength: 100, description: 'The organization name.' }),
  name: Type.String({ minLength: 1, maxLength: 100, description: 'The repository name.' }),
});
