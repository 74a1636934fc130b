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
    description: 'Where the team comes from: local (made here), forge (synced), idp, scim (provisioned).',
  }),
  ...Timestamps,
}, { title: 'Team' });
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
