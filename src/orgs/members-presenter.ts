import { Type, type Static } from 'typebox';
import type { MemberRow } from './members-store.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('member')], {
  description: 'owner: may change the organization, its repositories, teams and members. member: reads and uploads.',
});

export const MemberSchema = Type.Object({
  user_id: Type.String(),
  login: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  joined_at: Type.String({ format: 'date-time' }),
}, { title: 'Member' });
export type MemberJson = Static<typeof MemberSchema>;

export const PutMemberBody = Type.Object({ role: Role }, { additionalProperties: false });
export type PutMemberBody = Static<typeof PutMemberBody>;

export function presentMember(row: MemberRow): MemberJson {
  return { user_id: row.user_id, login: row.login, name: row.name, avatar_url: row.avatar_url, role: row.role, joined_at: row.joined_at };
}
