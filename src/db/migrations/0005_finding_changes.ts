import { sql, type Kysely } from 'kysely';

// The parsers' canonical tool names as of this migration (src/scans/parsers/tool-name.ts), frozen here.
const TOOL_NAMES: [alias: string, canonical: string][] = [
  ['trivy', 'Trivy'], ['semgrep', 'Semgrep'], ['semgrep oss', 'Semgrep'], ['grype', 'Grype'],
  ['gitleaks', 'Gitleaks'], ['kics', 'KICS'], ['osv-scanner', 'OSV-Scanner'],
];

/**
 * Which upload last fixed and last reopened each finding, so "what did this upload change" is a
 * lookup (`fixed_in`, `reopened_in`) like `first_upload_id` already is for new findings. Findings
 * fixed or reopened before this migration keep null: no record says which upload did it. And existing
 * analyses take the canonical tool names the parsers now give.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('findings').addColumn('fixed_upload_id', 'text').execute();
  await db.schema.alterTable('findings').addColumn('reopened_upload_id', 'text').execute();
  await db.schema.createIndex('findings_first_upload').on('findings').column('first_upload_id').execute();
  await db.schema.createIndex('findings_fixed_upload').on('findings').column('fixed_upload_id').execute();
  await db.schema.createIndex('findings_reopened_upload').on('findings').column('reopened_upload_id').execute();

  // Existing analyses take the canonical name, so the next upload of the tool continues them instead
  // of opening a second analysis beside them. Where both spellings already exist for one identity the
  // rows stay as they are (an owner can delete the stale one: DELETE /repos/{id}/analyses/{id}).
  for (const [alias, canonical] of TOOL_NAMES) {
    await sql`
      update analyses set tool = ${canonical}
      where lower(tool) = ${alias} and tool <> ${canonical}
        and not exists (
          select 1 from analyses other
          where other.repository_id = analyses.repository_id and other.category = analyses.category
            and other.format = analyses.format and other.id <> analyses.id
            and (other.tool = ${canonical} or lower(other.tool) = ${alias})
        )`.execute(db);
  }
}

/** Tool names stay canonical: the spelling each upload used is not kept. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_reopened_upload').execute();
  await db.schema.dropIndex('findings_fixed_upload').execute();
  await db.schema.dropIndex('findings_first_upload').execute();
  await db.schema.alterTable('findings').dropColumn('reopened_upload_id').execute();
  await db.schema.alterTable('findings').dropColumn('fixed_upload_id').execute();
}
