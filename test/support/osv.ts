import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { dialectOf } from '../../src/db/index.js';

/** GitHub's OSV record for Log4Shell: a GHSA id with the CVE as alias. */
export const LOG4SHELL = {
  schema_version: '1.6.0', id: 'GHSA-jfh8-c2jp-5v3q', modified: '2024-03-15T00:00:00Z', published: '2021-12-10T00:00:00Z',
  aliases: ['CVE-2021-44228'],
  summary: 'Remote code injection in Log4j',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }],
  affected: [{
    package: { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core' },
    ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }] }],
  }],
  database_specific: { severity: 'CRITICAL', cwe_ids: ['CWE-20', 'CWE-502'], github_reviewed: true },
};

/**
 * Makes the database refuse to store the advisory `id` (a trigger), as a failing disk or a constraint
 * would: for the tests of what an import does when a batch cannot be saved. Returns its undoing.
 */
export async function refuseAdvisory(db: Kysely<Database>, id: string): Promise<() => Promise<void>> {
  if (dialectOf(db) === 'postgres') {
    await sql`create function refuse_advisory() returns trigger language plpgsql as $$
      begin if new.id = ${sql.lit(id)} then raise exception 'refused by the test'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_advisory before insert on advisories for each row execute function refuse_advisory()`.execute(db);
    return async () => {
      await sql`drop trigger refuse_advisory on advisories`.execute(db);
      await sql`drop function refuse_advisory()`.execute(db);
    };
  }
  await sql`create trigger refuse_advisory before insert on advisories when new.id = ${sql.lit(id)}
    begin select raise(abort, 'refused by the test'); end`.execute(db);
  return async () => {
    await sql`drop trigger refuse_advisory`.execute(db);
  };
}
