import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { trackingStore } from '../../src/scans/tracking-store.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { quietLog, scansFor, seedRepository, storeUpload } from '../support/scans.js';

/** A CycloneDX 1.6 BOM (https://cyclonedx.org/docs/1.6/json/) whose components carry bom-refs. */
function bom(names: string[]) {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] } },
    components: names.map((name) => ({ type: 'library', 'bom-ref': `pkg:npm/${name}@1.0.0`, name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` })),
  });
}

describe.each(DB_KINDS)('lists of ids past the bind-parameter limit on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  // Every bom-ref a repository's stored VEX statements name is looked up at each upload: a VEX with
  // 70,000 affects[].ref made PostgreSQL refuse the query (65,535 parameters at most), and with it
  // every later upload to that repository.
  it("reads the purls of 70,000 bom-refs, each named once however often it is given", async () => {
    const scans = scansFor(db);
    const repo = await seedRepository(db);
    await storeUpload(scans, repo, bom(['left-pad', 'lodash', 'qs']));
    await scans.drain(quietLog);
    const refs = Array.from({ length: 70_000 }, (_, i) => `pkg:npm/unknown-${i}@1.0.0`);
    refs.push('pkg:npm/lodash@1.0.0', 'pkg:npm/qs@1.0.0', 'pkg:npm/qs@1.0.0');
    const purls = await db.kysely.transaction().execute((trx) => trackingStore(trx, db).purlsOfRefs(repo, refs));
    expect([...purls].sort()).toEqual([['pkg:npm/lodash@1.0.0', 'pkg:npm/lodash@1.0.0'], ['pkg:npm/qs@1.0.0', 'pkg:npm/qs@1.0.0']]);
  });
});
