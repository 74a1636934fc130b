import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';
import { DismissReasonEnum, FindingSchema } from '../results/schema.js';
import { RefQueryField } from '../refs/schema.js';
import { SEVERITIES } from '../domain/scan.js';

const Comment = Type.String({ maxLength: 2000 });

export const FindingDetailSchema = Type.Object({
  ...FindingSchema.properties,
  ref: Type.String({ description: 'The ref whose analysis holds this finding, as ?ref= names it.' }),
  help: Nullable(Type.String({ description: "The rule's help as the tool wrote it (SARIF rule.help, else fullDescription): markdown stays markdown; render it sanitised." })),
  locations: Type.Array(Type.Object({ path: Nullable(Type.String()), start_line: Nullable(Type.Integer()), end_line: Nullable(Type.Integer()) }), {
    description: 'Every location the tool gave, the first being file_path and its lines.',
  }),
  snippet: Nullable(Type.String({ description: 'The code at the location, when the report carries it.' })),
  location_url: Nullable(Type.String({ description: "The file and line on the repository's forge, at the commit of the upload that last applied this analysis." })),
}, { title: 'FindingDetail' });
export type FindingDetailJson = Static<typeof FindingDetailSchema>;

export const TriageBody = Type.Union([
  Type.Object({
    state: Type.Literal('dismissed'),
    reason: DismissReasonEnum,
    comment: Type.Optional(Comment),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'The dismissal ends then (the maintenance loop reopens the finding).' })),
  }, { additionalProperties: false }),
  Type.Object({
    state: Type.Literal('open'),
    comment: Type.Optional(Comment),
  }, { additionalProperties: false }),
], { title: 'Triage' });

export const FindingEventSchema = Type.Object({
  event: Type.Enum(['opened', 'fixed', 'reopened', 'dismissed', 'reopened_by_hand', 'dismissal_expired', 'dismissed_by_rule', 'rule_deleted', 'dismissed_by_vex', 'reopened_by_vex']),
  at: Time,
  by: Nullable(Type.String({ description: 'The login of the person (triage events).' })),
  upload_id: Nullable(Type.String({ description: 'The upload that caused it (opened, fixed, reopened); null when a re-match did.' })),
  advisory: Nullable(Type.Object({
    id: Type.String({ description: 'The advisory (the finding\'s rule id).' }),
    imported_at: Time,
  }, { description: 'Opened, fixed or reopened by a re-match after an advisory import (no upload): the advisory that matched, or no longer did, and when it was imported.' })),
  reason: Nullable(DismissReasonEnum),
  comment: Nullable(Type.String()),
}, { title: 'FindingEvent' });
export type FindingEventJson = Static<typeof FindingEventSchema>;

export const FindingHistorySchema = Type.Array(FindingEventSchema, {
  description: 'Oldest first. Uploads (or re-matches after an advisory import): when it was first reported, last fixed and last reopened. Triage: every change.',
});

export const BulkTriageBody = Type.Object({
  ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 10000, uniqueItems: true, description: 'These findings of the repository.' })),
  filter: Type.Optional(Type.Object({
    ref: Type.Optional(RefQueryField),
    state: Type.Optional(Type.Enum(['open', 'dismissed', 'all'], { description: 'Default open; all means open and dismissed.' })),
    severity: Type.Optional(Type.Enum([...SEVERITIES])),
    tool: Type.Optional(Type.String({ maxLength: 200 })),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the rule id, message or file path.' })),
    introduced_in: Type.Optional(Type.String({ maxLength: 64 })),
    reopened_in: Type.Optional(Type.String({ maxLength: 64 })),
  }, { additionalProperties: false, description: 'Every finding the findings list shows with the same filters (all pages).' })),
  triage: TriageBody,
}, { additionalProperties: false, title: 'BulkTriage', description: 'Either ids or filter.' });

export const BulkTriageResult = Type.Object({
  changed: Type.Integer({ description: 'How many findings (fingerprints) changed state, reason or comment.' }),
}, { title: 'BulkTriageResult' });
