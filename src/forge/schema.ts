import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';

export const ForgeLinkSchema = Type.Object({
  provider: Type.String({ description: "The sign-in provider's id." }),
  owner: Type.String({ description: 'GitHub organisation login, GitLab group full path, Gitea/Forgejo organisation or Bitbucket workspace.' }),
  last_synced_at: Nullable(Time),
  last_error: Nullable(Type.String({ description: 'Why the last pass stopped (the previous state was kept); null after a pass that finished.' })),
  syncing: Type.Boolean({ description: 'A pass is asked for or under way: last_synced_at or last_error changes when it ends.' }),
  counts: Type.Object({
    repositories: Type.Integer({ description: 'Repositories that follow the forge.' }),
    members: Type.Integer({ description: 'Memberships that come from the forge.' }),
    teams: Type.Integer({ description: 'Teams that come from the forge.' }),
  }),
}, { title: 'ForgeLink' });

export const LinkForgeBody = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 100 }),
  owner: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$', description: 'The owner on the forge, as its URL spells it.' }),
}, { additionalProperties: false });
export type LinkForgeBody = Static<typeof LinkForgeBody>;

export const HookParams = Type.Object({ provider: Type.String({ maxLength: 100 }) });
export const HookAnswer = Type.Object({ status: Type.Union([Type.Literal('queued'), Type.Literal('duplicate')]) });
