import { Type } from 'typebox';

export const BadgeParams = Type.Object({ repo_id: Type.String({ maxLength: 100 }) });
export const BadgeQuery = Type.Object({
  token: Type.Optional(Type.String({ description: "The repository's badge token." })),
});

export const BadgeTokenSchema = Type.Object({
  repository_id: Type.String(),
  token: Type.String({ description: 'Shown this once; a new token replaces the old one.' }),
  created_at: Type.String({ format: 'date-time' }),
  findings_url: Type.String({ description: 'The findings badge, token included (a path on this service).' }),
  gate_url: Type.String({ description: 'The gate badge, token included.' }),
}, { title: 'BadgeToken' });
