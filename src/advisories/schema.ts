import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Nullable, Time } from '../http/schemas.js';

export const ImportReportSchema = Type.Object({
  added: Type.Integer(),
  updated: Type.Integer({ description: 'Records whose `modified` is newer than the stored one.' }),
  withdrawn: Type.Integer({ description: 'Records newly marked withdrawn: they match nothing any more.' }),
  unchanged: Type.Integer({ description: 'Records not newer than the stored one.' }),
  rejected: Type.Array(Type.Object({ file: Type.String(), reason: Type.String() }), { description: 'The first 100 records, rows or files refused, each with why; the rest were imported.' }),
  rejected_total: Type.Integer({ description: 'How many were refused in all (`rejected` lists the first 100).' }),
  rematch_queued: Type.Integer({ description: 'Repository refs queued to be matched again because advisories of their packages changed.' }),
  kev: Nullable(Type.Integer({ description: 'CVEs in the CISA KEV catalogue imported (it replaces the previous one); null when none was.' })),
  epss: Nullable(Type.Integer({ description: 'CVEs scored by the FIRST EPSS file imported (it replaces the previous scores); null when none was.' })),
}, { title: 'AdvisoryImportReport' });
export type ImportReportJson = Static<typeof ImportReportSchema>;

const SeverityEnum = Type.Enum(['critical', 'high', 'medium', 'low', 'info']);

export const AdvisorySummarySchema = Type.Object({
  id: Type.String(),
  aliases: Type.Array(Type.String()),
  summary: Nullable(Type.String()),
  severity: SeverityEnum,
  cvss_score: Nullable(Type.Number({ description: 'The base score of its highest CVSS v3/v4 vector, from which severity comes.' })),
  modified: Time,
  published: Nullable(Time),
  withdrawn: Nullable(Time),
}, { title: 'AdvisorySummary' });
export type AdvisorySummaryJson = Static<typeof AdvisorySummarySchema>;

export const TopAdvisorySchema = Type.Object({
  ...AdvisorySummarySchema.properties,
  repositories: Type.Integer({ description: "How many of the caller's repositories have an open finding for it (any ref)." }),
}, { title: 'TopAdvisory' });
export type TopAdvisoryJson = Static<typeof TopAdvisorySchema>;

export const TopAdvisoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'How many advisories (at most 50).' })),
});

const EventSchema = Type.Object({
  introduced: Type.Optional(Type.String()), fixed: Type.Optional(Type.String()),
  last_affected: Type.Optional(Type.String()), limit: Type.Optional(Type.String()),
});

export const AdvisorySchema = Type.Object({
  ...AdvisorySummarySchema.properties,
  details: Nullable(Type.String()),
  references: Type.Array(Type.Object({ type: Type.String(), url: Type.String() }), { description: 'Where to read more (OSV references): http(s) links only.' }),
  affected: Type.Array(Type.Object({
    ecosystem: Type.String(), name: Type.String(),
    ranges: Type.Array(Type.Object({ type: Type.String(), events: Type.Array(EventSchema) })),
    versions: Type.Array(Type.String()),
  })),
  repositories: Type.Array(Type.Object({
    id: Type.String(), name: Type.String(), org: Type.Object({ id: Type.String(), name: Type.String() }),
    ref: Type.String(), package: Type.Object({ name: Nullable(Type.String()), version: Nullable(Type.String()), purl: Nullable(Type.String()) }),
  }), { description: "The caller's repositories with a component it affects (open findings), by ref; at most 1,000." }),
}, { title: 'Advisory' });
export type AdvisoryJson = Static<typeof AdvisorySchema>;

export const AdvisoryQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the id, an alias or the summary.' })),
  ecosystem: Type.Optional(Type.String({ maxLength: 200, description: 'OSV ecosystem of an affected package, e.g. npm, PyPI, Debian:12.' })),
  package: Type.Optional(Type.String({ maxLength: 500, description: 'Name of an affected package as the advisory spells it.' })),
});
export type AdvisoryQuery = Static<typeof AdvisoryQuery>;

export const AdvisorySourceSchema = Type.Object({
  url: Type.String(),
  etag: Nullable(Type.String({ description: 'The ETag of the last copy imported, sent as If-None-Match.' })),
  last_modified: Nullable(Type.String({ description: 'Its Last-Modified, sent as If-Modified-Since.' })),
  checked_at: Nullable(Time),
  synced_at: Nullable(Time),
  last_error: Nullable(Type.String({ description: 'Why the last attempt failed; the advisories of earlier copies stay.' })),
  counts: Type.Object({
    added: Type.Integer(), updated: Type.Integer(), withdrawn: Type.Integer(), unchanged: Type.Integer(), rejected: Type.Integer(),
  }, { description: 'What the last import from it did.' }),
}, { title: 'AdvisorySource' });
export type AdvisorySourceJson = Static<typeof AdvisorySourceSchema>;
