import { Type, type Static } from 'typebox';
import { Nullable } from '../http/schemas.js';

/** How a person shows wherever they appear: in a member list, a picker, the header. */
export const ProfileFields = {
  login: Type.String(),
  name: Nullable(Type.String()),
  avatar_url: Nullable(Type.String()),
};

export const CurrentUserSchema = Type.Object({
  id: Type.String(),
  ...ProfileFields,
  email: Nullable(Type.String()),
  is_admin: Type.Boolean(),
  provider: Nullable(Type.Object({ id: Type.String(), type: Type.String() })),
  orgs: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() })),
}, { title: 'CurrentUser' });
export type CurrentUserJson = Static<typeof CurrentUserSchema>;

/** What anyone signed in may see of another user: enough to pick them, nothing private. */
export const UserSummarySchema = Type.Object({ id: Type.String(), ...ProfileFields }, { title: 'UserSummary' });
export type UserSummaryJson = Static<typeof UserSummarySchema>;

export const MAX_SEARCH_RESULTS = 20;

export const UserSearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 100, description: 'The start of a login, ignoring case.' }),
});
