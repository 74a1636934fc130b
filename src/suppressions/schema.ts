import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';

const Reason = Type.Enum(['false_positive', 'wont_fix', 'used_in_tests', 'accepted_risk', 'not_affected']);
const Criterion = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 500, description }));

export const SuppressionParams = Type.Object({ id: Type.String(), suppression_id: Type.String() });

export const SuppressionBody = Type.Object({
  tool: Criterion('The tool, as analyses name it (any case).'),
  rule_id: Criterion('The rule id (any case).'),
  path: Criterion('A glob over the file path, e.g. test/** or **/*.spec.ts: * within a segment, ** across segments, ? one character, the rest literal; at most 256 characters.'),
  purl: Criterion('A package URL prefix, with or without version: pkg:npm/lodash covers every version of lodash.'),
  advisory: Criterion("An advisory id (CVE, GHSA, ...), matched against the finding's rule id."),
  repositories: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Only these repositories of the org; every one when left out.' })),
  reason: Reason,
  comment: Type.Optional(Type.String({ maxLength: 2000 })),
  expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'The rule stops applying then, and what it dismissed opens again.' })),
}, { additionalProperties: false, title: 'NewSuppression', description: 'At least one of tool, rule_id, path, purl or advisory; every one given must match.' });

export const SuppressionSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  tool: Nullable(Type.String()),
  rule_id: Nullable(Type.String()),
  path: Nullable(Type.String()),
  purl: Nullable(Type.String()),
  advisory: Nullable(Type.String()),
  repositories: Nullable(Type.Array(Type.String())),
  reason: Reason,
  comment: Nullable(Type.String()),
  expires_at: Nullable(Time),
  created_at: Time,
  findings: Type.Integer({ description: 'How many findings (fingerprints) the rule holds dismissed now.' }),
}, { title: 'Suppression' });
export type SuppressionJson = Static<typeof SuppressionSchema>;
