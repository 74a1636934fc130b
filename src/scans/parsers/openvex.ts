import { describeType, list, record, records, text, type JsonRecord } from './access.js';
import { parseJson } from './text.js';
import { type NormalisedScan, type VexStatement } from '../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from './types.js';

const STATUSES = new Set(['not_affected', 'affected', 'fixed', 'under_investigation']);

/**
 * An OpenVEX document (spec v0.2.0; v0.0.x wrote the vulnerability as a bare string). A statement's
 * products are what it is about; when it lists subcomponents (the packages inside an image, say),
 * those are the packages the statement is about. Statements are applied in document order, later
 * ones after earlier ones, with their own timestamp or the document's: the newest wins.
 */
export function parseOpenVex(doc: unknown): NormalisedScan {
  const vex = record(doc);
  if (!vex) throw new ParseError(`An OpenVEX document must be a JSON object, not ${describeType(doc)}`);
  const context = text(vex['@context']);
  if (!context?.startsWith('https://openvex.dev/ns')) throw new ParseError('This is not an OpenVEX document: "@context" is not https://openvex.dev/ns');
  if (!Array.isArray(vex.statements)) throw new ParseError(`"statements" must be an array, not ${describeType(vex.statements)}`);
  const documentTime = text(vex.timestamp) ?? '';
  const timed = vex.statements.map((value, index) => {
    const statement = record(value);
    if (!statement) throw new ParseError(`statements[${index}] must be an object, not ${describeType(value)}`);
    return { statement, index, at: text(statement.timestamp) ?? documentTime };
  });
  // Stable: equal times keep document order.
  timed.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.index - b.index));
  return { format: 'vex', analyses: [], statements: timed.flatMap(({ statement, index }) => statementsOf(statement, `statements[${index}]`)) };
}

function statementsOf(statement: JsonRecord, path: string): VexStatement[] {
  const named = record(statement.vulnerability);
  const vulnerability = text(named?.name) ?? text(named?.['@id']) ?? text(statement.vulnerability);
  if (!vulnerability) throw new ParseError(`${path}.vulnerability.name is missing`);
  const status = text(statement.status);
  if (!status || !STATUSES.has(status)) throw new ParseError(`${path}.status must be one of ${[...STATUSES].join(', ')}`);
  const aliases = list(named?.aliases).map(text).filter((alias): alias is string => alias !== undefined);
  const products = records(statement.products);
  const subcomponents = products.flatMap((product) => records(product.subcomponents));
  const purls = (subcomponents.length > 0 ? subcomponents : products).map(purlOf).filter((purl): purl is string => purl !== undefined);
  const detail = text(statement.impact_statement) ?? text(statement.action_statement) ?? text(statement.status_notes) ?? null;
  return purls.map((purl) => ({
    vulnerability, aliases, product: { purl }, status: status as VexStatement['status'],
    justification: text(statement.justification) ?? null, detail,
  }));
}

/** A component's purl: its @id when that is one, else identifiers.purl. */
function purlOf(component: JsonRecord): string | undefined {
  const id = text(component['@id']);
  if (id?.startsWith('pkg:')) return id;
  return text(record(component.identifiers)?.purl);
}

export const openVex: FormatParser = {
  title: 'OpenVEX', format: 'vex', syntax: 'json', contentTypes: [],
  recognises: (doc) => !doc.array && doc.keyValueStartsWith('@context', 'https://openvex.dev/ns'),
  parse: (body) => parseOpenVex(parseJson(body, FAMILIES.vex.document)),
};
