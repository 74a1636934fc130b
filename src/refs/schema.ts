import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';

export const RefKindEnum = Type.Enum(['branch', 'pull_request', 'tag']);

export const RefQueryField = Type.String({
  maxLength: 300,
  description: 'A branch (x or refs/heads/x), pull request (pr/N or refs/pull/N/merge) or tag (refs/tags/v1), as GET /repos/{id}/refs names it; absent: the default branch.',
});

export const RefSchema = Type.Object({
  ref: Type.String({ description: 'What ?ref= takes to read this ref: a branch name, pr/N, or refs/tags/x.' }),
  kind: RefKindEnum,
  name: Type.String({ description: 'The branch or tag name; pr/N for a pull request.' }),
  default: Type.Boolean({ description: "The repository's default branch, whose results the repository's status shows." }),
  base_ref: Nullable(Type.String({ description: "A pull request's base branch (as of its latest upload)." })),
  state: Type.Enum(['pending', 'processing', 'complete', 'failed']),
  last_upload_at: Nullable(Time),
  last_completed_at: Nullable(Time),
  findings: Type.Object({
    open: Type.Integer(), critical: Type.Integer(), high: Type.Integer(), medium: Type.Integer(), low: Type.Integer(), info: Type.Integer(),
    fixed: Type.Integer(),
  }, { description: 'Open findings by severity across its analyses, and those fixed on it so far.' }),
  components: Type.Integer(),
}, { title: 'Ref' });

export type RefJson = Static<typeof RefSchema>;
