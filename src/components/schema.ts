import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { NamedRef, Nullable } from '../http/schemas.js';

export const ComponentAcrossSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Nullable(Type.String()),
  purl: Nullable(Type.String()),
  type: Nullable(Type.String()),
  tool: Type.String({ description: 'The SBOM generator that reported it.' }),
  repository: NamedRef,
  org: NamedRef,
  ref: Type.String({ description: 'The ref whose SBOM lists it, as ?ref= names it.' }),
}, { title: 'ComponentUse' });
export type ComponentAcrossJson = Static<typeof ComponentAcrossSchema>;

export const ComponentsQuery = Type.Object({
  ...PageQuery.properties,
  purl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'A purl: with a version, that version only; without, every version (names normalised as the ecosystem does).' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'The component name exactly.' })),
  ecosystem: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'OSV ecosystem, e.g. npm, PyPI, Maven, Debian:12.' })),
  advisory: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'An advisory id or alias: the components it affects.' })),
});
export type ComponentsQuery = Static<typeof ComponentsQuery>;
