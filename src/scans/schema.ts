import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Nullable, Time } from '../http/schemas.js';
import { SCAN_FORMATS, SEVERITIES } from '../domain/scan.js';
import { GateSchema } from '../gates/schema.js';
import { RefKindEnum, RefQueryField } from '../refs/schema.js';

const SeverityCountsSchema = Type.Object(Object.fromEntries(SEVERITIES.map((s) => [s, Type.Integer()])) as Record<(typeof SEVERITIES)[number], ReturnType<typeof Type.Integer>>);

export const UploadSchema = Type.Object({
  id: Type.String(),
  repository_id: Type.String(),
  format: Type.String({ description: `One of ${SCAN_FORMATS.join(', ')}; or advisories: a re-match of the ref's components after an advisory import changed advisories of their packages.` }),
  status: Type.Enum(['pending', 'processing', 'complete', 'failed']),
  sha256: Type.String({ description: 'SHA-256 of the (decompressed) document.' }),
  size_bytes: Type.Integer(),
  category: Type.String({ description: 'Separates analyses of the same tool, as in GitHub code scanning.' }),
  commit_sha: Nullable(Type.String()),
  head_sha: Nullable(Type.String({ description: "A pull request's head commit, as CI gave it: where its check run goes." })),
  base_sha: Nullable(Type.String({ description: "A pull request's merge base, as CI gave it." })),
  ref: Type.String({ description: 'The ref it belongs to, as ?ref= names it (the default branch when the upload named none).' }),
  ref_kind: RefKindEnum,
  base_ref: Nullable(Type.String({ description: "A pull request's base branch, which vs_base compares with." })),
  vs_base: Nullable(Type.Object({
    new: Type.Integer({ description: 'Open in the pull request, not open on the base (same tool, category and format).' }),
    fixed: Type.Integer({ description: 'Open on the base, absent from the pull request.' }),
  }, { description: 'A pull request upload against its base branch as it was when processed; null otherwise, or until processed.' })),
  tools: Type.Array(Type.String(), { description: 'The tools found in the document (once processed).' }),
  error: Nullable(Type.String({ description: 'Why processing failed, in words.' })),
  counts: Type.Object({
    new: Type.Integer(), fixed: Type.Integer(), reopened: Type.Integer(), unchanged: Type.Integer(),
    findings: Type.Integer(), components: Type.Integer(),
  }, { description: 'What this upload changed (once complete).' }),
  components_unchecked: Nullable(Type.Integer({
    description: 'Components with a purl that could not be matched against advisories (an ecosystem or version that cannot be ordered); null when no matching ran.',
  })),
  changes: Type.Union([Type.Object({ new: SeverityCountsSchema, reopened: SeverityCountsSchema, fixed: SeverityCountsSchema }), Type.Null()], {
    description: 'What this upload changed, by severity (once complete).',
  }),
  gate: Type.Union([GateSchema, Type.Null()], {
    description: 'How the upload was judged against its repository policy once complete; null before, or when it failed.',
  }),
  created_at: Time,
  started_at: Nullable(Time),
  completed_at: Nullable(Time),
  ci_token_id: Nullable(Type.String({ description: 'The short-lived CI token (POST /auth/ci/token) it was uploaded with, if any: its exchange is in the org audit log as ci.token.exchanged, with the job token\'s claims.' })),
}, { title: 'Upload' });

export const UploadWaitQuery = Type.Object({
  wait: Type.Optional(Type.Integer({
    minimum: 0, maximum: 60, default: 0,
    description: 'Seconds to wait for the upload to complete or fail before answering with it as it stands.',
  })),
});

const Text = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

/** Context of an upload, as query parameters or multipart fields. An empty value is the same as none (CI variables are often empty). */
export const UploadQuery = Type.Object({
  format: Type.Optional(Type.Enum([...SCAN_FORMATS], { description: 'Name the format instead of detecting it.' })),
  category: Text(200, 'Separates analyses of the same tool (e.g. a language or a sub-project), as in GitHub code scanning.'),
  commit_sha: Type.Optional(Type.String({
    pattern: '^([0-9a-fA-F]{7,64})?$',
    description: 'The commit that was scanned: 7 to 64 hexadecimal digits (an abbreviated or full SHA-1 or SHA-256).',
  })),
  head_sha: Type.Optional(Type.String({
    pattern: '^([0-9a-fA-F]{7,64})?$',
    description: "A pull request's head commit (GitHub's pull_request.head.sha), where its check run goes; absent: commit_sha for a refs/pull/N/head ref, else read from the forge.",
  })),
  base_sha: Type.Optional(Type.String({
    pattern: '^([0-9a-fA-F]{7,64})?$',
    description: "A pull request's merge base: a base branch analysed at another commit makes the verdict say its findings may not be new.",
  })),
  ref: Text(300, 'The branch, tag or pull request that was scanned: refs/heads/x or x, refs/tags/v1, refs/pull/N/merge (or /head), '
    + 'refs/merge-requests/N/head, or pr/N. Absent: the default branch.'),
  base_ref: Text(300, "A pull request's base branch (what it is compared with); absent: the default branch."),
});

export const OrgUploadQuery = Type.Object({
  ...UploadQuery.properties,
  repo: Type.String({
    minLength: 1, maxLength: 300,
    description: "The repository: its forge full name (acme/payments-api) when the organization follows a forge, found on the forge if not synced yet; else its name here.",
  }),
});

export const UploadsQuery = Type.Object({
  ...PageQuery.properties,
  ref: Type.Optional(RefQueryField),
});

export type UploadJson = Static<typeof UploadSchema>;
