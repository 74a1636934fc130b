import { Type, type Static, type TSchema } from 'typebox';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const SeverityEnum = Type.Enum([...SEVERITIES]);

const perSeverity = <T extends TSchema>(value: T, description: string) => Type.Object(
  Object.fromEntries(SEVERITIES.map((s) => [s, Type.Optional(value)])) as Record<(typeof SEVERITIES)[number], ReturnType<typeof Type.Optional<T>>>,
  { additionalProperties: false, description },
);

const LicenseList = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 500,
  description: 'SPDX licence identifiers (with `+` or `WITH` an exception) or LicenseRef-…; one licence per entry.',
});

/** The rules a gate judges by. Every rule is optional: an empty policy passes everything. */
export const PolicyDocument = Type.Object({
  max_open: Type.Optional(perSeverity(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
    'Most open findings allowed per severity; a severity left out has no limit.')),
  fail_on_new: Type.Optional(Type.Union([SeverityEnum, Type.Null()], {
    description: 'Fail when the upload judged brought a new or reopened finding of this severity or worse.',
  })),
  fail_on_kev: Type.Optional(Type.Boolean({ description: 'Fail when an open finding is in the CISA KEV catalogue (by its rule id or an alias the advisory database knows).' })),
  max_age_days: Type.Optional(perSeverity(Type.Integer({ minimum: 1, maximum: 36_500 }),
    'Fail when a finding of this severity has been open longer than this many days.')),
  max_age_kev_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500, description: "Days to fix a finding the KEV catalogue lists, counted from when it was first seen or Scanyard imported the catalogue entry, whichever is later: the SLA's kev_days (the gate does not judge it)." })),
  licenses: Type.Optional(Type.Object({
    deny: Type.Optional(LicenseList),
    allow: Type.Optional(Type.Union([LicenseList, Type.Null()], { description: 'When set, every component must be usable under these licences alone.' })),
    unknown: Type.Optional(Type.Enum(['warn', 'fail'], { description: 'Licences no list can judge (unparsable, NOASSERTION, LicenseRef-…): listed as a warning, or failing. Default warn.' })),
  }, { additionalProperties: false })),
}, { additionalProperties: false, title: 'Policy' });
export type PolicyDocument = Static<typeof PolicyDocument>;

export const RepoPolicyDocument = Type.Object({
  inherit: Type.Optional(Type.Boolean({ description: "true (the default when none was set): follow the organization's policy, with no other field. false or absent: the other fields are this repository's own policy." })),
  ...PolicyDocument.properties,
}, { additionalProperties: false, title: 'RepoPolicy' });
export type RepoPolicyDocument = Static<typeof RepoPolicyDocument>;

export const ViolationSchema = Type.Object({
  rule: Type.String({ description: 'The policy field that was broken, e.g. max_open, fail_on_new, licenses.deny.' }),
  level: Type.Enum(['fail', 'warn']),
  message: Type.String(),
  count: Type.Integer(),
  examples: Type.Array(Type.String(), { description: 'A few of the findings or components concerned.' }),
});

export const GateSchema = Type.Object({
  status: Type.Enum(['pass', 'warn', 'fail']),
  violations: Type.Array(ViolationSchema),
}, { title: 'Gate', description: 'The verdict of the repository policy.' });

export const RepoGateSchema = Type.Object({
  ...GateSchema.properties,
  repository_id: Type.String(),
  policy_source: Type.Enum(['repository', 'organization'], { description: 'Whose policy was applied.' }),
  policy: PolicyDocument,
  judged_at: Type.String({ format: 'date-time' }),
  upload_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The upload whose new findings fail_on_new judged: of the latest upload of each analysis on the default branch, the newest that fails it, else the newest; null before any.',
  }),
}, { title: 'RepoGate' });
