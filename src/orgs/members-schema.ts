import { Type, type Static } from 'typebox';
import { Time } from '../http/schemas.js';
import { ProfileFields } from '../users/schema.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('member')], {
  description: 'owner: may change the organization, its repositories, teams and members. member: reads and uploads.',
});

export const MemberSchema = Type.Object({
  user_id: Type.String(),
  ...ProfileFields,
  role: Role,
  joined_at: Time,
  source: Type.Union([Type.Literal('local'), Type.Literal('forge'), Type.Literal('idp'), Type.Literal('scim')], {
    description: 'Where the membership comes from: local (added here), forge (synced), idp (a group mapping at sign-in, which re-applies it), scim (provisioned).',
  }),
}, { title: 'Member' });
export type MemberJson = Static<typeof MemberSchema>;

export const PutMemberBody = Type.Object({ role: Role }, { additionalProperties: false });

export const MemberParams = Type.Object({ id: Type.String(), user_id: Type.String() });
