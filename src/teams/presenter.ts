import { Type, type Static } from 'typebox';
import type { TeamWithMembers } from './store.js';
import { DescriptionField, NameField } from '../orgs/names.js';

const MAX_TEAM_MEMBERS = 1000;

export const TeamSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  members: Type.Array(Type.String(), { description: 'User ids.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
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
export type CreateTeamBody = Static<typeof CreateTeamBody>;

export const UpdateTeamBody = Type.Object({
  name: Type.Optional(NameField('within its organization')),
  description: Type.Optional(DescriptionField),
  members: Type.Optional(Members),
}, { additionalProperties: false, description: 'Fields left out keep their value.' });
export type UpdateTeamBody = Static<typeof UpdateTeamBody>;

export function presentTeam(row: TeamWithMembers): TeamJson {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    members: row.members,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
