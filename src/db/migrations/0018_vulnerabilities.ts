import { sql, type Kysely } from 'kysely';

/**
 * One vulnerability, many names: a ref keeps its open vulnerabilities (findings naming the same
 * vulnerability, by id or alias, in the same package, counted once) by severity as JSON beside its
 * per-finding counts, worked out when its totals are. A partial index over the findings that name a
 * package (a purl) keeps that read to the vulnerabilities: a SARIF upload's findings have no purl,
 * so it costs them nothing. Existing refs get their counts at their next upload or triage.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refs').addColumn('vulnerabilities', 'text').execute();
  // The repository's status row is a copy of its default branch's ref row (scans/status-store.ts).
  await db.schema.alterTable('repo_status').addColumn('vulnerabilities', 'text').execute();
  // With state too: SQLite, given ref_id and state, otherwise takes the page index (ref_id, state, ...)
  // and reads every open finding of the ref to test its purl, a SARIF ref's 100,000 included.
  await db.schema.createIndex('findings_ref_vulnerabilities').on('findings').columns(['ref_id', 'state'])
    .where(sql.ref('purl'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_ref_vulnerabilities').execute();
  await db.schema.alterTable('repo_status').dropColumn('vulnerabilities').execute();
  await db.schema.alterTable('refs').dropColumn('vulnerabilities').execute();
}
