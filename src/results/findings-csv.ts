import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyRequest } from 'fastify';
import type { Page, Paged } from '../db/page.js';
import type { FindingJson } from './schema.js';

/** Findings per query while streaming: the export reads every page, never all rows at once. */
const BATCH = 1000;

const COLUMNS = [
  'id', 'tool', 'category', 'rule_id', 'rule_name', 'severity', 'state', 'message', 'file_path', 'start_line', 'end_line',
  'package', 'package_version', 'purl', 'fingerprint', 'first_seen_at', 'fixed_at', 'reopened_at',
  'dismissal_reason', 'dismissal_comment', 'dismissal_by', 'dismissal_at', 'dismissal_until', 'due_at', 'sla', 'direct', 'path',
] as const;

/** Whether the caller asked for CSV (`Accept: text/csv`) rather than JSON. */
export function wantsCsv(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').split(',').some((type) => type.trim().toLowerCase().startsWith('text/csv'));
}

/**
 * Every finding the filters match, as CSV, one batch at a time. The first batch is read before the
 * stream is returned, so a refusal (404, 400) is still an error response rather than a cut-off file.
 */
export async function findingsCsv<Row>(load: (page: Page) => Promise<Paged<Row>>, present: (row: Row) => FindingJson): Promise<Readable> {
  const first = await load({ page: 1, perPage: BATCH, offset: 0 });
  async function* rows() {
    let batch = first.items;
    for (let page = 1; batch.length > 0; page++) {
      for (const row of batch) yield csvRow(present(row));
      if (batch.length < BATCH) break;
      batch = (await load({ page: page + 1, perPage: BATCH, offset: page * BATCH })).items;
    }
  }
  // Messages, paths and rule names come from the scanned code: one starting with = + - @ would run as a
  // formula in the spreadsheet the file is opened in, so such cells are written with a leading '.
  return Readable.from(rows()).pipe(stringify({ header: true, columns: [...COLUMNS], escape_formulas: true }));
}

function csvRow(f: FindingJson): Record<(typeof COLUMNS)[number], string | number | null> {
  return {
    id: f.id, tool: f.tool, category: f.category, rule_id: f.rule_id, rule_name: f.rule_name, severity: f.severity, state: f.state,
    message: f.message, file_path: f.file_path, start_line: f.start_line, end_line: f.end_line,
    package: f.package?.name ?? null, package_version: f.package?.version ?? null, purl: f.package?.purl ?? null,
    fingerprint: f.fingerprint, first_seen_at: f.first_seen_at, fixed_at: f.fixed_at, reopened_at: f.reopened_at,
    dismissal_reason: f.dismissal?.reason ?? null, dismissal_comment: f.dismissal?.comment ?? null, dismissal_by: f.dismissal?.by ?? null,
    dismissal_at: f.dismissal?.at ?? null, dismissal_until: f.dismissal?.until ?? null, due_at: f.due_at ?? null, sla: f.sla ?? null,
    // "true"/"false", empty when unknown; the path as npm ls reads it: express@4.16.0 > body-parser@1.18.2 > qs@6.5.1.
    direct: f.direct === null ? null : String(f.direct),
    path: f.path?.map((c) => (c.version ? `${c.name}@${c.version}` : c.name)).join(' > ') ?? null,
  };
}
