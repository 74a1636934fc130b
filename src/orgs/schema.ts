import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Timestamps } from '../http/schemas.js';
import { DescriptionField, NameField } from './names.js';

const BaseRoleSchema = Type.Union([Type.Literal('read'), Type.Literal('none')], {
  description: 'What every member may do to every repository: "read" (read, upload and triage every repository; the default) or "none" (only what their teams hold). Owners hold every role on every repository.',
});

/** What Scanyard posts on pull requests (the verdicts feature reads it). */
export const PrFeedbackSchema = Type.Object({
  checks: Type.Boolean({ description: 'A check run (GitHub) or commit status (GitLab, Gitea, Forgejo, Bitbucket) on each pull request head and default-branch push.' }),
  comment: Type.Enum(['on_change', 'always', 'off'], { description: 'One pull request comment, edited in place: when the verdict or the new findings change, after every upload, or never.' }),
}, { additionalProperties: false, title: 'PrFeedback' });

export const OrgSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  repo_count: Type.Integer({ minimum: 0, description: 'The repositories the caller may read.' }),
  base_role: BaseRoleSchema,
  pr_feedback: Type.Optional(PrFeedbackSchema),
  ...Timestamps,
}, { title: 'Organization', description: 'pr_feedback is shown by POST, GET and PUT of one organization, not in lists.' });
export type OrgJson = Static<typeof OrgSchema>;

export const CreateOrgBody = Type.Object({
  name: NameField('across the service'),
  description: Type.Optional(DescriptionField),
}, { additionalProperties: false });

export const UpdateOrgBody = Type.Object({
  name: Type.Optional(NameField('across the service')),
  description: Type.Optional(DescriptionField),
  base_role: Type.Optional(BaseRoleSchema),
  pr_feedback: Type.Optional(Type.Partial(PrFeedbackSchema)),
}, { additionalProperties: false, description: 'Fields left out keep their value.' });

export const OrgListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Only organizations whose name contains this, ignoring case.' })),
});
