import { Type, type Static } from 'typebox';
import type { RepoRow } from '../db/schema.js';
import { PageQuery } from '../http/pagination.js';
import { NameField } from '../orgs/names.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const RepoSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  url: Nullable(Type.String()),
  default_branch: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Repository' });
export type RepoJson = Static<typeof RepoSchema>;

export const CreateRepoBody = Type.Object({
  name: NameField('within its organization'),
  url: Type.Optional(Nullable(Type.String({
    maxLength: 2000,
    format: 'uri',
    // A host is required: "http://" alone is a valid URI but names no repository.
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+',
    description: 'The http(s) URL of the repository on its forge.',
  }))),
  default_branch: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
}, { additionalProperties: false });
export type CreateRepoBody = Static<typeof CreateRepoBody>;

export const RepoListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Only repositories whose name contains this, ignoring case.' })),
});

export function presentRepo(row: RepoRow): RepoJson {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    url: row.url,
    default_branch: row.default_branch,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
