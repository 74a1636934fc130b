import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { containsIgnoringCase } from '../../src/db/like.js';
import { DB_KINDS, useEmptyDatabase } from '../support/db.js';

describe.each(DB_KINDS)('containsIgnoringCase on %s', (kind) => {
  const database = useEmptyDatabase(kind);
  let db: Db;
  beforeAll(async () => {
    db = database();
    await sql`create table searched (name text not null)`.execute(db.kysely);
    const names = ['Lodash', 'LODASH-es', 'lodash_merge', 'lodashXmerge', '100% pure', '1000 pure', 'back\\slash', 'backslash', 'Prototype Pollution in minimist'];
    for (const name of names) await sql`insert into searched (name) values (${name})`.execute(db.kysely);
  });

  const search = async (q: string) => (await sql<{ name: string }>`select name from searched where ${containsIgnoringCase(db.dialect, 'name', q)} order by name`
    .execute(db.kysely)).rows.map((r) => r.name).sort();

  it('finds the text anywhere in the value, whatever the case of either', async () => {
    expect(await search('lodash')).toEqual(['LODASH-es', 'Lodash', 'lodashXmerge', 'lodash_merge']);
    expect(await search('DASH-E')).toEqual(['LODASH-es']);
    expect(await search('POLLUTION IN')).toEqual(['Prototype Pollution in minimist']);
    expect(await search('nothing like it')).toEqual([]);
  });

  it('takes %, _ and \\ literally', async () => {
    expect(await search('h_m')).toEqual(['lodash_merge']);
    expect(await search('0%')).toEqual(['100% pure']);
    expect(await search('k\\s')).toEqual(['back\\slash']);
  });
});
