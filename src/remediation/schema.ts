import { Type, type Static } from 'typebox';
import { Nullable } from '../http/schemas.js';
import { SEVERITIES } from '../domain/scan.js';
import { RefQueryField } from '../refs/schema.js';

const SeverityEnum = Type.Enum([...SEVERITIES]);

const Via = Type.Object({ name: Type.String(), version: Nullable(Type.String()) });

export const ActionSchema = Type.Object({
  package: Type.String(),
  purl: Type.String({ description: 'The package: its purl without version.' }),
  ecosystem: Type.String({ description: 'OSV ecosystem.' }),
  from: Type.String({ description: 'The installed version.' }),
  to: Nullable(Type.String({ description: 'The version to upgrade to: the smallest fixed version above `from` that no advisory affects; when none is, the one fixing the most (see `remaining`). Null: no fixed version is known.' })),
  vulnerabilities: Type.Array(Type.String(), { description: 'What `to` fixes: one id per vulnerability (its CVE when it has one), however many names and tools report it.' }),
  remaining: Type.Array(Type.String(), { description: 'The vulnerabilities `to` leaves (empty when `to` is safe).' }),
  severity: SeverityEnum,
  kev: Type.Integer({ description: 'How many of those fixed are in the CISA KEV catalogue.' }),
  epss: Nullable(Type.Number({ description: 'The highest EPSS probability among those fixed.' })),
  via: Type.Array(Via, { description: 'The direct dependencies that pull it in: where to change the manifest (the package itself when it is direct). Empty without a dependency graph.' }),
  finding_ids: Type.Array(Type.String(), { description: 'The open findings of this package version.' }),
}, { title: 'RemediationAction' });
export type ActionJson = Static<typeof ActionSchema>;

export const OrgActionSchema = Type.Object({
  package: Type.String(),
  purl: Type.String(),
  ecosystem: Type.String(),
  from: Type.Array(Type.String(), { description: 'The installed versions it replaces.' }),
  to: Nullable(Type.String()),
  vulnerabilities: Type.Array(Type.String(), { description: 'Distinct vulnerability ids it fixes across the repositories.' }),
  severity: SeverityEnum,
  kev: Type.Integer(),
  epss: Nullable(Type.Number()),
  repositories: Type.Array(Type.String(), { description: 'Ids of the repositories (default branches) that need it.' }),
}, { title: 'OrgRemediationAction' });
export type OrgActionJson = Static<typeof OrgActionSchema>;

export const RemediationQuery = Type.Object({ ref: Type.Optional(RefQueryField) });
