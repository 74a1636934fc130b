import type { Kysely } from 'kysely';
import type { AdvisoryPackagesTable, Database } from '../db/schema.js';
import { now } from '../db/time.js';
import type { Advisory } from './osv.js';

/** Keys per `IN (...)` list: well inside both databases' parameter limits. */
const CHUNK = 5000;

/** An affected package of a live (not withdrawn) advisory, with what a finding needs of the record. */
export interface AffectedRow extends Pick<AdvisoryPackagesTable, 'package_key' | 'ranges' | 'versions'> {
  advisory_id: string;
  aliases: string;
  summary: string | null;
  severity: string;
}

export type ImportOutcome = 'added' | 'updated' | 'withdrawn' | 'unchanged';

export function advisoryStore(db: Kysely<Database>) {
  return {
    /**
     * Stores a record unless the stored one is as new or newer (`modified`). Returns what happened
     * and the package keys whose matches may change (the old and the new record's).
     */
    async save(advisory: Advisory): Promise<{ outcome: ImportOutcome; keys: string[] }> {
      return db.transaction().execute(async (trx) => {
        const stored = await trx.selectFrom('advisories').select(['modified', 'withdrawn']).where('id', '=', advisory.id).executeTakeFirst();
        if (stored && stored.modified >= advisory.modified) return { outcome: 'unchanged' as const, keys: [] };
        const oldKeys = stored
          ? (await trx.selectFrom('advisory_packages').select('package_key').where('advisory_id', '=', advisory.id).execute()).map((r) => r.package_key)
          : [];
        const row = {
          modified: advisory.modified, published: advisory.published, withdrawn: advisory.withdrawn,
          aliases: JSON.stringify(advisory.aliases), summary: advisory.summary, details: advisory.details,
          severity: advisory.severity, cvss_score: advisory.cvssScore, imported_at: now(),
        };
        if (stored) {
          await trx.updateTable('advisories').set(row).where('id', '=', advisory.id).execute();
          await trx.deleteFrom('advisory_aliases').where('advisory_id', '=', advisory.id).execute();
          await trx.deleteFrom('advisory_packages').where('advisory_id', '=', advisory.id).execute();
        } else {
          await trx.insertInto('advisories').values({ id: advisory.id, ...row }).execute();
        }
        if (advisory.aliases.length > 0) {
          await trx.insertInto('advisory_aliases').values(advisory.aliases.map((alias) => ({ alias, advisory_id: advisory.id }))).execute();
        }
        if (advisory.affected.length > 0) {
          await trx.insertInto('advisory_packages').values(advisory.affected.map((a, ordinal) => ({
            advisory_id: advisory.id, ordinal, ecosystem: a.ecosystem, name: a.name, package_key: a.key,
            ranges: JSON.stringify(a.ranges), versions: JSON.stringify(a.versions),
          }))).execute();
        }
        const keys = [...oldKeys, ...advisory.affected.map((a) => a.key)].filter((k): k is string => k !== null);
        const outcome: ImportOutcome = advisory.withdrawn && !stored?.withdrawn ? 'withdrawn' : stored ? 'updated' : 'added';
        return { outcome, keys: [...new Set(keys)] };
      });
    },

    /** The affected packages of live advisories among these package keys. */
    async affecting(keys: string[]): Promise<AffectedRow[]> {
      const rows: AffectedRow[] = [];
      for (let i = 0; i < keys.length; i += CHUNK) {
        rows.push(...await db.selectFrom('advisory_packages')
          .innerJoin('advisories', 'advisories.id', 'advisory_packages.advisory_id')
          .select(['advisory_packages.advisory_id', 'advisory_packages.package_key', 'advisory_packages.ranges', 'advisory_packages.versions',
            'advisories.aliases', 'advisories.summary', 'advisories.severity'])
          .where('advisory_packages.package_key', 'in', keys.slice(i, i + CHUNK))
          .where('advisories.withdrawn', 'is', null)
          .execute());
      }
      return rows;
    },

    /** A ref's components with a purl (the advisories analysis's own rows excluded: it has none). */
    refComponents(refId: string) {
      return db.selectFrom('components')
        .innerJoin('analyses', 'analyses.id', 'components.analysis_id')
        .select(['components.name', 'components.version', 'components.purl', 'components.package_key'])
        .where('analyses.ref_id', '=', refId).where('components.purl', 'is not', null)
        .execute();
    },
  };
}
