import { Type, type Static } from 'typebox';
import type { OrgWithCounts } from './store.js';
import { PageQuery } from '../http/pagination.js';
import { DescriptionField, NameField } from './names.js';

export const OrgSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  repo_count: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Organization' });
export type OrgJson = Static<typeof OrgSchema>;

export const CreateOrgBody = Type.Object({
  name: NameField('across the service'),
  description: Type.Optional(DescriptionField),
}, { additionalProperties: false });
export type CreateOrgBody = Static<typeof CreateOrgBody>;

export const UpdateOrgBody = Type.Object({
  name: Type.Optional(NameField('across the service')),
  description: Type.Optional(DescriptionField),
}, { additionalProperties: false, description: 'Fields left out keep their value.' });
export type UpdateOrgBody = Static<typeof UpdateOrgBody>;

export const OrgListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Only organizations whose name contains this, ignoring case.' })),
});

export function presentOrg(row: OrgWithCounts): OrgJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    repo_count: row.repo_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
