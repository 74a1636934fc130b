import { setTimeout as sleep } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import { SqliteDialect, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';

/**
 * Parameters of a statement to run once per row, on the connection that holds the transaction:
 * SQLite's bulk insert (db/bulk-insert.ts). One prepared single-row statement run per row beats
 * building and preparing huge multi-row statements, since SQLite runs in-process.
 */
export class EachRow<Row = unknown> {
  constructor(readonly rows: readonly Row[], readonly parametersOf: (row: Row) => unknown[]) {}
}

const MAX_STATEMENTS = 500;

/** How long a write waits for another connection's transaction, as busy_timeout would. */
const LOCK_WAIT_MS = 30_000;

/** Waits between attempts at a locked database (SQLite's own busy handler uses the same steps). */
const RETRY_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/**
 * Kysely's own SQLite driver has one connection, and better-sqlite3 is synchronous: a write that
 * finds another connection's transaction in progress (the ingest thread's, another instance's)
 * waits for it inside busy_timeout, holding the whole event loop, and every read queues behind it
 * (the mixed-load benchmark measured 115 ms of loop delay). Here each Kysely instance has a few
 * connections, which never wait inside SQLite (busy_timeout 0): a statement or `begin` that finds
 * the database locked did nothing, so it is tried again after an asynchronous pause, and only its
 * own connection waits; reads go on through the others (WAL: readers never wait for a writer).
 *
 * `open` opens one connection with its pragmas; an in-memory database must have `size` 1, as each
 * connection would open a database of its own.
 */
export class PooledSqliteDialect extends SqliteDialect {
  constructor(private readonly open: () => SQLite.Database, private readonly size: number) {
    // The parent's driver is never made; it only needs a config to hold.
    super({ database: () => Promise.reject(new Error('unused')) });
  }

  override createDriver(): Driver {
    return new PooledSqliteDriver(this.open, this.size);
  }
}

class PooledSqliteDriver implements Driver {
  readonly #open: () => SQLite.Database;
  readonly #size: number;
  readonly #all: SqliteConnection[] = [];
  readonly #idle: SqliteConnection[] = [];
  readonly #waiting: ((connection: SqliteConnection) => void)[] = [];

  constructor(open: () => SQLite.Database, size: number) {
    this.#open = open;
    this.#size = size;
  }

  async init(): Promise<void> {
    // One connection to begin with (Kysely calls this before its first query); more are opened as
    // concurrent queries need them, up to the pool's size.
    const first = new SqliteConnection(this.#open());
    this.#all.push(first);
    this.#idle.push(first);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#all.length < this.#size) {
      const connection = new SqliteConnection(this.#open());
      this.#all.push(connection);
      return connection;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Immediate: the transaction takes the write lock as it begins, so it waits its turn here. A
    // deferred one that had read and then wrote would fail at once (SQLITE_BUSY_SNAPSHOT) if another
    // connection wrote in between, and could not be retried halfway through.
    await (connection as SqliteConnection).run('begin immediate');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SqliteConnection).run('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SqliteConnection).run('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const next = this.#waiting.shift();
    if (next) next(connection as SqliteConnection);
    else this.#idle.push(connection as SqliteConnection);
  }

  async destroy(): Promise<void> {
    for (const connection of this.#all) connection.close();
    this.#all.length = 0;
    this.#idle.length = 0;
  }
}

class SqliteConnection implements DatabaseConnection {
  readonly #database: SQLite.Database;
  // Kysely prepares every query anew; SQLite's prepare was a tenth of the CPU of a status read.
  // The same few statements run again and again, so each connection keeps its own. Safe because
  // a connection runs one query at a time. Bounded, so generated SQL (IN lists of varying length)
  // cannot grow it.
  readonly #statements = new Map<string, Prepared>();
  readonly #schemaVersion: SQLite.Statement;

  constructor(database: SQLite.Database) {
    this.#database = database;
    this.#schemaVersion = database.prepare('pragma schema_version').pluck();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.#prepare(query.sql);
    const [first] = query.parameters;
    if (query.parameters.length === 1 && first instanceof EachRow) {
      for (const row of first.rows) prepared.statement.run(first.parametersOf(row));
      return { rows: [] };
    }
    // Inside a transaction this connection holds the write lock (begin immediate): nothing to wait for.
    if (this.#database.inTransaction) return this.#execute<R>(prepared, query.parameters);
    try {
      return this.#execute<R>(prepared, query.parameters);
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
    return whenUnlocked(() => this.#execute<R>(prepared, query.parameters));
  }

  // eslint-disable-next-line require-yield -- the interface asks for a generator; nothing streams
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('streaming queries is not supported on SQLite here');
  }

  run(sql: string): Promise<void> {
    const { statement } = this.#prepare(sql);
    return whenUnlocked(() => {
      statement.run();
    });
  }

  close(): void {
    this.#database.close();
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      const statement = this.#database.prepare(sql);
      // A reader returns arrays, made into rows here: better-sqlite3 builds each row object in C++,
      // one property at a time, which took half the time of reading 100 repositories of an org.
      prepared = {
        statement: statement.reader ? statement.raw(true) : statement,
        columns: statement.reader ? statement.columns().map((column) => column.name) : null,
        schema: -1,
        // Only `*` (select *, table.*, returning *) can read other columns once the schema changed.
        followsSchema: sql.includes('*'),
      };
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.delete(this.#statements.keys().next().value!);
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  #execute<R>(prepared: Prepared, parameters: readonly unknown[]): QueryResult<R> {
    const { statement } = prepared;
    if (!statement.reader) {
      const { changes, lastInsertRowid } = statement.run(parameters);
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    }
    // SQLite prepares a statement again when the schema has changed (a migration, by this process or
    // another), as it runs it, and `select *` then has other columns: their names are read again
    // after such a run. A statement that names its columns keeps them, and skips the schema version,
    // which cost as much as the status read's own query (20 µs of every request).
    if (!prepared.followsSchema) return { rows: rowsOf<R>(prepared.columns!, statement.all(parameters) as unknown[][]) };
    const schema = this.#schemaVersion.get() as number;
    const values = statement.all(parameters) as unknown[][];
    if (schema !== prepared.schema) {
      prepared.columns = statement.columns().map((column) => column.name);
      prepared.schema = schema;
    }
    return { rows: rowsOf<R>(prepared.columns!, values) };
  }
}

/** A statement, and for a reader (which returns arrays) its columns' names as of the schema version read. */
interface Prepared {
  statement: SQLite.Statement;
  columns: readonly string[] | null;
  schema: number;
  /** Whether its columns can change with the schema (it reads `*`): their names are then checked as it runs. */
  followsSchema: boolean;
}

/** Rows as better-sqlite3 would make them: a column named twice keeps its last value. */
function rowsOf<R>(columns: readonly string[], values: unknown[][]): R[] {
  const rows = new Array<R>(values.length);
  for (let r = 0; r < values.length; r++) {
    const value = values[r]!;
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) row[columns[c]!] = value[c];
    rows[r] = row as R;
  }
  return rows;
}

/**
 * Runs `work` (one statement outside a transaction, or `begin immediate`); while SQLite answers
 * that another connection holds the lock, which means the statement did nothing, tries again after
 * a pause that leaves the event loop free.
 */
async function whenUnlocked<T>(work: () => T): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return work();
    } catch (error) {
      if (!isBusy(error) || Date.now() - started > LOCK_WAIT_MS) throw error;
    }
    await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
