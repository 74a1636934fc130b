import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * Rows for PostgreSQL's `COPY ... FROM STDIN`, given to Kysely as the one parameter of that
 * statement: the pool below sends them as COPY data instead of binding them. COPY is how PostgreSQL
 * takes many rows fastest: inserting 100,000 findings through `unnest` arrays spent as long parsing
 * the array literals and in pg's array escaping as in writing the rows. Each item's values (in the
 * statement's column order) are worked out as its chunk is written, while PostgreSQL stores the
 * chunks before it.
 */
export class CopyRows<Item = unknown> {
  constructor(
    readonly items: readonly Item[],
    readonly valuesOf: (item: Item) => unknown[],
  ) {}
}

/** Rows per chunk written to the socket: PostgreSQL works on one while the next is serialised. */
const ROWS_PER_CHUNK = 2000;

/** The client Kysely's PostgresDialect uses: only query() and release(). */
interface KyselyPoolClient {
  query: pg.PoolClient['query'];
  release(): void;
}

/**
 * The pool Kysely is given: each client sends a `CopyRows` parameter as COPY data and passes every
 * other query through untouched. One wrapper per pooled client, because Kysely keeps its
 * connection objects by client.
 */
export function copyAwarePool(pool: pg.Pool) {
  const wrappers = new WeakMap<pg.PoolClient, KyselyPoolClient>();
  return {
    async connect(): Promise<KyselyPoolClient> {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = {
          query: ((text: unknown, values?: unknown[]) => {
            const rows = values?.[0];
            if (typeof text === 'string' && rows instanceof CopyRows) return copyIn(client, text, rows);
            return (client.query as (text: unknown, values?: unknown[]) => unknown)(text, values);
          }) as pg.PoolClient['query'],
          release: () => client.release(),
        };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

async function copyIn(client: pg.PoolClient, text: string, rows: CopyRows) {
  const stream = client.query(copyFrom(text));
  await pipeline(Readable.from(copyText(rows)), stream);
  return { command: 'COPY', rowCount: stream.rowCount, rows: [] };
}

function* copyText({ items, valuesOf }: CopyRows): Generator<Buffer> {
  for (let start = 0; start < items.length; start += ROWS_PER_CHUNK) {
    const lines: string[] = [];
    const end = Math.min(items.length, start + ROWS_PER_CHUNK);
    for (let i = start; i < end; i++) lines.push(valuesOf(items[i]).map(copyValue).join('\t'));
    lines.push('');
    yield Buffer.from(lines.join('\n'));
  }
}

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One value in COPY's text format: `\N` is null; backslash, newline, carriage return and tab are escaped. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  return SPECIAL.test(text) ? text.replace(SPECIALS, (ch) => ESCAPED[ch]!) : text;
}
