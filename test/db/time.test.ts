import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { fromPgTimestamptz } from '../../src/db/time.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';

describe('timestamps as PostgreSQL sends them', () => {
  it('read as our ISO form with milliseconds, truncated as Date truncates them, whatever the fraction', () => {
    for (const [text, iso] of [
      ['2026-11-27 22:50:11.439981+00', '2026-11-27T22:50:11.439Z'],
      ['2026-11-27 22:50:11.4399+00', '2026-11-27T22:50:11.439Z'],
      ['2026-11-27 22:50:11.43+00', '2026-11-27T22:50:11.430Z'],
      ['2026-11-27 22:50:11.5+00', '2026-11-27T22:50:11.500Z'],
      ['2026-11-27 22:50:11+00', '2026-11-27T22:50:11.000Z'],
      ['0999-01-01 00:00:00.000001+00', '0999-01-01T00:00:00.000Z'],
    ]) {
      expect(fromPgTimestamptz(text!)).toBe(iso);
      expect(fromPgTimestamptz(text!)).toBe(new Date(text!).toISOString());
    }
  });

  it('read through Date when the session is not at UTC', () => {
    expect(fromPgTimestamptz('2026-11-27 22:50:11.4399+05:30')).toBe('2026-11-27T17:20:11.439Z');
    expect(fromPgTimestamptz('2026-11-27 00:10:00-01')).toBe('2026-11-27T01:10:00.000Z');
  });

  it('agree with Date on random instants at every precision', () => {
    for (let i = 0; i < 2000; i++) {
      const at = new Date(Math.floor(Math.random() * 4102444800000)).toISOString();
      const micros = String(Math.floor(Math.random() * 1e6)).padStart(6, '0').slice(0, i % 7).replace(/0+$/, '');
      const text = `${at.slice(0, 10)} ${at.slice(11, 19)}${micros ? `.${micros}` : ''}+00`;
      expect(fromPgTimestamptz(text)).toBe(new Date(text).toISOString());
    }
  });
});

describe.each(DB_KINDS.filter((kind) => kind === 'postgres'))('timestamps read from %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('come back in the form stored, in a UTC session and in another time zone', async () => {
    const stored = ['2026-11-27T22:50:11.439Z', '2026-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z'];
    for (const zone of ['UTC', 'Asia/Kolkata']) {
      await db.kysely.connection().execute(async (connection) => {
        await sql`select set_config('TimeZone', ${zone}, false)`.execute(connection);
        const rows = await sql<{ at: string }>`select unnest(${stored}::timestamptz[]) as at`.execute(connection);
        expect(rows.rows.map((r) => r.at)).toEqual(stored);
        await sql`reset TimeZone`.execute(connection);
      });
    }
  });
});
