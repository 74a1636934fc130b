import { Type, type Static } from 'typebox';

/** What anyone signed in may see of another user: enough to pick them, nothing private. */
export const UserSummarySchema = Type.Object({
  id: Type.String(),
  login: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
}, { title: 'UserSummary' });
export type UserSummary = Static<typeof UserSummarySchema>;

export function presentUserSummary(user: UserSummary): UserSummary {
  return { id: user.id, login: user.login, name: user.name, avatar_url: user.avatar_url };
}
