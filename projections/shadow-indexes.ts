import type { Queryable } from '../services/database/queryable.js';
import { READ_MODEL_SCHEMA } from './types.js';

/**
 * Indexes of shadow tables. A replay loads a fresh shadow table with only the indexes writes
 * depend on and builds the live table's others once the rows are in: one sorted build per
 * index costs far less than maintaining it row by row. Indexes keep the live names (index
 * names are per schema), so a promoted table reads as the migrations left it.
 */
export interface TableIndex {
  readonly name: string;
  readonly primary: boolean;
  readonly unique: boolean;
  /** The definition after `USING` (method, columns, predicate): equal for an index and its copy. */
  readonly method: string;
  /** `PRIMARY KEY (...)` / `UNIQUE (...)` when a constraint owns the index. */
  readonly constraint: string | null;
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export const tableIndexes = async (
  db: Queryable,
  schema: string,
  table: string,
): Promise<TableIndex[]> =>
  (
    await db.query<TableIndex>(
      `SELECT c.relname AS name, i.indisprimary AS primary, i.indisunique AS unique,
              regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING ', '') AS method,
              pg_get_constraintdef(con.oid) AS constraint
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indexrelid
         LEFT JOIN pg_constraint con
           ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u', 'x')
        WHERE i.indrelid = to_regclass($1)
        ORDER BY c.relname`,
      [`${schema}.${table}`],
    )
  ).rows;

const signature = (index: TableIndex): string =>
  `${String(index.primary)} ${String(index.unique)} ${index.method}`;

const createStatement = (schema: string, table: string, index: TableIndex): string =>
  index.constraint === null
    ? `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(index.name)} ON ${schema}.${quoteIdent(table)} USING ${index.method}`
    : `ALTER TABLE ${schema}.${quoteIdent(table)} ADD CONSTRAINT ${quoteIdent(index.name)} ${index.constraint}`;

/**
 * Which indexes a fresh shadow table is loaded with: its primary key, and its unique indexes
 * unless `deferUnique` (the table's `deferUniqueIndexes`). Handlers may rely on those (an
 * upsert's ON CONFLICT, a duplicate refused at its event); plain indexes never change what a
 * write does.
 */
export type IndexPhase =
  { readonly load: true; readonly deferUnique: boolean } | { readonly load: false };

const wanted = (index: TableIndex, phase: IndexPhase): boolean =>
  !phase.load || index.primary || (index.unique && !phase.deferUnique);

/**
 * Creates on `shadow.table` each index of the live table it lacks (matched by definition, not
 * name): those a load needs, or (after the load) all of them. Returns the names created.
 */
export const copyLiveIndexes = async (
  db: Queryable,
  shadow: string,
  table: string,
  phase: IndexPhase,
): Promise<string[]> => {
  const present = new Set((await tableIndexes(db, shadow, table)).map(signature));
  const created: string[] = [];
  for (const index of await tableIndexes(db, READ_MODEL_SCHEMA, table)) {
    if (!wanted(index, phase) || present.has(signature(index))) continue;
    await db.query(createStatement(shadow, table, index));
    created.push(index.name);
  }
  return created;
};
