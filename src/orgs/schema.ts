import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Timestamps } from '../http/schemas.js';
import { DescriptionField, NameField } from './names.js';

export const OrgSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  repo_count: Type.Integer({ minimum: 0 }),
  ...Timestamps,
}, { title: 'Organization' });
export type OrgJson = Static<typeof OrgSchema>;

export const CreateOrgBody = Type.Object({
  name: NameField('across the service'),
  description: Type.Optional(DescriptionField),
}, { additionalProperties: false });

export const UpdateOrgBody = Type.Object({
  name: Type.Optional(NameField('across the service')),
  description: Type.Optional(DescriptionField),
}, { additionalProperties: false, description: 'Fields left out keep their value.' });

export const OrgListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Only organizations whose name contains this, ignoring case.' })),
});
