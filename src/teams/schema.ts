import { Type, type Static } from 'typebox';
import { Timestamps } from '../http/schemas.js';
import { DescriptionField, NameField } from '../orgs/names.js';

const MAX_TEAM_MEMBERS = 1000;

export const TeamSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  members: Type.Array(Type.String(), { description: 'User ids.' }),
  source: Type.Union([Type.Literal('local'), Type.Literal('forge'), Type.Literal('idp'), Type.Literal('scim')], {
    description: 'Where the team comes from: local (made here), forge (synced; it cannot be changed here: 409), idp, scim (provisioned).',
  }),
  ...Timestamps,
}, { title: 'Team' });

const RepoRoleSchema = Type.Union([Type.Literal('read'), Type.Literal('triage'), Type.Literal('admin')], {
  description: 'read: see the repository, its results and components, upload; triage: also dismiss and reopen findings; admin: also its policy, badge token and deleting analyses.',
});

export const TeamRepoSchema = Type.Object({
  repository_id: Type.String(),
  name: Type.String(),
  full_name: Type.Union([Type.String(), Type.Null()], { description: "owner/name on the forge, when the repository follows it." }),
  role: RepoRoleSchema,
}, { title: 'TeamRepository' });
export type TeamRepoJson = Static<typeof TeamRepoSchema>;

export const PutTeamRepoBody = Type.Object({ role: RepoRoleSchema }, { additionalProperties: false });
export const TeamRepoParams = Type.Object({ id: Type.String(), repo_id: Type.String() });
export type TeamJson = Static<typeof TeamSchema>;

const Members = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: MAX_TEAM_MEMBERS,
  description: 'User ids; each must be a member of the organization. Replaces the whole list.',
});

export const CreateTeamBody = Type.Object({
  name: NameField('within its organization'),
  description: Type.Optional(DescriptionField),
  members: Type.Optional(Members),
}, { additionalProperties: false });

export const UpdateTeamBody = Type.Object({
  name: Type.Optional(NameField('within its organization')),
  description: Type.Optional(DescriptionField),
  members: Type.Optional(Members),
}, { additionalProperties: false, description: 'Fields left out keep their value.' });
