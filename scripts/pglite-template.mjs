// `npm pack` (prepack, after the build): ships a template of a fresh embedded data folder in
// dist/, so an installed package's first `serve` or `ingest` on a new folder unpacks it in well
// under a second instead of running PGlite's initdb in WebAssembly (~9 s, ~0.8 GB resident on
// two cores). It is what the product itself keeps in the user's cache after its first initdb
// (services/database/embedded/pglite-start.ts): the same PGlite build, created the same way,
// nothing written to it yet. Named by the PGlite version, so a different build ignores it.
import { PGlite } from '@electric-sql/pglite';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'));
const folder = join(ROOT, 'dist', 'pglite-template');
const target = join(folder, `pglite-${version}-datadir.tar.gz`);

const started = Date.now();
const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-template-'));
try {
  const pglite = await PGlite.create(dataDir);
  const archive = await pglite.dumpDataDir('gzip');
  await pglite.close();
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(target, Buffer.from(await archive.arrayBuffer()));
  process.stderr.write(
    `dist/pglite-template/: a fresh data folder of PGlite ${version} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
