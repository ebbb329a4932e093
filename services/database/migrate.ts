import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { CogitaveError } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';

/**
 * Numbered SQL migrations, one folder per owner (the event store, each projection, ...).
 * Files are `NNN_description.sql`, applied in order, each in its own transaction, recorded
 * with a checksum so an edited, already-applied migration is refused rather than ignored.
 */
export interface MigrationSet {
  readonly owner: string;
  /** Folder URL, usually `new URL('./migrations/', import.meta.url)`. */
  readonly directory: URL;
}

interface MigrationFile {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;
// Any constant shared by every process of the product: one migrator at a time.
const MIGRATION_LOCK_KEY = 0x636f_6769_7461n;

const loadMigrationFiles = (set: MigrationSet): MigrationFile[] => {
  const dir = fileURLToPath(set.directory);
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => {
      const match = FILE_PATTERN.exec(file);
      if (!match?.[1] || !match[2]) {
        throw new CogitaveError(
          'INTERNAL',
          `Migration "${file}" in ${dir} is not named NNN_description.sql`,
        );
      }
      const sql = readFileSync(`${dir}/${file}`, 'utf8');
      return {
        version: Number(match[1]),
        name: match[2],
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
  files.forEach((file, index) => {
    if (file.version !== index + 1) {
      throw new CogitaveError(
        'INTERNAL',
        `Migrations of ${set.owner} must be numbered 001, 002, ... without gaps or repeats: expected ${String(index + 1).padStart(3, '0')}_*.sql where ${String(file.version).padStart(3, '0')}_${file.name}.sql stands in ${dir}`,
      );
    }
  });
  return files;
};

export interface MigrationReport {
  readonly applied: { owner: string; version: number; name: string }[];
}

export const migrate = async (
  pool: pg.Pool,
  sets: readonly MigrationSet[],
  logger: Logger,
): Promise<MigrationReport> => {
  const client = await pool.connect();
  const applied: MigrationReport['applied'] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS public.cogitave_migrations (
      owner text NOT NULL, version integer NOT NULL, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (owner, version))`);
    for (const set of sets) {
      const done = await client.query<{ version: number; checksum: string }>(
        'SELECT version, checksum FROM public.cogitave_migrations WHERE owner = $1',
        [set.owner],
      );
      const checksums = new Map(done.rows.map((row) => [row.version, row.checksum]));
      const files = loadMigrationFiles(set);
      const missing = done.rows
        .filter((row) => row.version > files.length)
        .map((row) => row.version);
      if (missing.length > 0) {
        throw new CogitaveError(
          'INTERNAL',
          `Migrations ${missing.join(', ')} of ${set.owner} were applied to this database but their files are missing: this build is older than the database`,
        );
      }
      for (const file of files) {
        const recorded = checksums.get(file.version);
        if (recorded !== undefined) {
          if (recorded !== file.checksum) {
            throw new CogitaveError(
              'INTERNAL',
              `Migration ${set.owner}/${file.version}_${file.name} changed after it was applied; add a new migration instead`,
            );
          }
          continue;
        }
        await client.query('BEGIN');
        try {
          // The advisory lock is per session, and the processes sharing an embedded database
          // share its one session: another one may have applied this file since the check.
          const already = await client.query(
            'SELECT 1 FROM public.cogitave_migrations WHERE owner = $1 AND version = $2',
            [set.owner, file.version],
          );
          if (already.rowCount !== 0) {
            await client.query('ROLLBACK');
            continue;
          }
          await client.query(file.sql);
          await client.query(
            'INSERT INTO public.cogitave_migrations (owner, version, name, checksum) VALUES ($1, $2, $3, $4)',
            [set.owner, file.version, file.name, file.checksum],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new CogitaveError(
            'INTERNAL',
            `Migration ${set.owner}/${file.version}_${file.name} failed: ${(error as Error).message}`,
            {},
            { cause: error },
          );
        }
        applied.push({ owner: set.owner, version: file.version, name: file.name });
        logger.info(
          { owner: set.owner, migration: `${file.version}_${file.name}` },
          'migration applied',
        );
      }
    }
  } finally {
    await client
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()])
      .catch(() => undefined);
    client.release();
  }
  return { applied };
};
