import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { finding } from '../finding.js';
import { SEVERITIES, type NormalisedScan } from '../../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from '../types.js';
import { parseJson } from '../text.js';
import { LAST_LINE, record, text } from '../access.js';
import { canonicalToolName } from '../tool-name.js';

export const GENERIC_SCHEMA_ID = 'scanyard-findings/1';

const GenericPackage = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Package name as its ecosystem writes it, e.g. "lodash".' }),
    version: Type.Optional(Type.String({ minLength: 1, description: 'Installed version of the package.' })),
    purl: Type.Optional(
      Type.String({ minLength: 1, description: 'Package URL, e.g. "pkg:npm/lodash@4.17.20".' }),
    ),
  },
  { additionalProperties: false, description: 'For dependency findings: the affected package.' },
);

const GenericFinding = Type.Object(
  {
    rule_id: Type.String({
      minLength: 1,
      description: 'Identifier of the rule or advisory that was violated (e.g. "no-eval", "CVE-2021-44228").',
    }),
    title: Type.Optional(Type.String({ minLength: 1, description: 'Short human title of the rule.' })),
    message: Type.String({ minLength: 1, description: 'What is wrong in this occurrence, for a human reader.' }),
    severity: Type.Enum([...SEVERITIES], { description: 'How serious the finding is.' }),
    file: Type.Optional(
      Type.String({ minLength: 1, description: 'Path of the affected file, relative to the repository root.' }),
    ),
    start_line: Type.Optional(Type.Integer({ minimum: 1, maximum: LAST_LINE, description: 'First affected line, counting from 1.' })),
    end_line: Type.Optional(
      Type.Integer({ minimum: 1, maximum: LAST_LINE, description: 'Last affected line, counting from 1; not before start_line.' }),
    ),
    fingerprint: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A stable identity for this finding that survives unrelated edits (e.g. a hash of the matched code). ' +
          'Findings with the same rule_id, file and fingerprint are the same finding across uploads.',
      }),
    ),
    package: Type.Optional(GenericPackage),
    help_uri: Type.Optional(Type.String({ minLength: 1, description: 'Link to documentation about the rule.' })),
  },
  { additionalProperties: false, description: 'One finding.' },
);

export const GenericFindingsSchema = Type.Object(
  {
    schema: Type.Literal(GENERIC_SCHEMA_ID, {
      description: `Identifies this format and its version; always "${GENERIC_SCHEMA_ID}".`,
    }),
    tool: Type.Object(
      {
        name: Type.String({ minLength: 1, description: 'Name of the tool that produced the findings.' }),
        version: Type.Optional(Type.String({ minLength: 1, description: 'Version of that tool.' })),
      },
      {
        additionalProperties: false,
        description: 'The tool that produced the findings; uploads of one tool are compared with each other.',
      },
    ),
    findings: Type.Array(GenericFinding, {
      description: 'Every finding of the scan. An empty array records a clean scan.',
    }),
  },
  {
    additionalProperties: false,
    title: 'Scanyard findings',
    description: 'Scanyard\'s own findings format, for tools that produce neither SARIF nor a supported native report.',
  },
);

const validator = Compile(GenericFindingsSchema);
const MAX_REPORTED_ERRORS = 5;

export function parseGeneric(doc: unknown): NormalisedScan {
  if (!validator.Check(doc)) throw new ParseError(`Invalid ${GENERIC_SCHEMA_ID} document: ${describeErrors(doc)}`);
  const report = doc;
  report.findings.forEach((item, index) => {
    if (item.start_line !== undefined && item.end_line !== undefined && item.end_line < item.start_line) {
      throw new ParseError(`Invalid ${GENERIC_SCHEMA_ID} document: /findings/${index}/end_line is before start_line`);
    }
  });
  return {
    format: 'findings',
    analyses: [
      {
        tool: { name: canonicalToolName(report.tool.name), version: report.tool.version ?? null },
        findings: report.findings.map((item) =>
          finding({
            ruleId: item.rule_id,
            ruleName: item.title ?? null,
            message: item.message,
            severity: item.severity,
            filePath: item.file ?? null,
            startLine: item.start_line ?? null,
            endLine: item.end_line ?? item.start_line ?? null,
            fingerprint: item.fingerprint ?? null,
            packageName: item.package?.name ?? null,
            packageVersion: item.package?.version ?? null,
            purl: item.package?.purl ?? null,
            helpUri: item.help_uri ?? null,
          }),
        ),
        components: [],
        dependencies: [],
      },
    ],
  };
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

function describeErrors(doc: unknown): string {
  // "schema is false" repeats what additionalProperties says better; anyOf/const branches are noise.
  const errors = (validator.Errors(doc) as SchemaError[]).filter((error) => error.keyword !== 'boolean');
  const shown = errors.slice(0, MAX_REPORTED_ERRORS).map(describeError);
  const more = errors.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function describeError({ keyword, instancePath, message, params }: SchemaError): string {
  const path = instancePath === '' ? '(document)' : instancePath;
  const list = (value: unknown): string => (Array.isArray(value) ? value.map(String).join(', ') : String(value));
  switch (keyword) {
    case 'enum':
      return `${path}: must be one of ${list(params.allowedValues)}`;
    case 'const':
      return `${path}: must be ${JSON.stringify(params.allowedValue)}`;
    case 'required':
      return `${path}: missing ${list(params.requiredProperties)}`;
    case 'minLength':
      return params.limit === 1 ? `${path}: must not be empty` : `${path}: ${message}`;
    case 'additionalProperties':
      return `${path}: unknown property ${list(params.additionalProperties)}`;
    default:
      return `${path}: ${message}`;
  }
}

export const genericFindings: FormatParser = {
  title: GENERIC_SCHEMA_ID, format: 'findings', syntax: 'json', contentTypes: [],
  recognises: (doc) => !doc.array && doc.keyValueStartsWith('schema', 'scanyard-findings/'),
  parse(body) {
    const doc = parseJson(body, FAMILIES.findings.document);
    const schema = text(record(doc)?.schema);
    if (schema !== undefined && schema !== GENERIC_SCHEMA_ID) {
      throw new ParseError(`"schema" is "${schema}"; this server reads ${GENERIC_SCHEMA_ID}`);
    }
    return parseGeneric(doc);
  },
};
