import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackTemplate } from '../../../services/database/embedded/template-archive.js';
import { repoRoot } from '../../support/cli.js';

/**
 * What `npm pack` of the repository ships (prepack builds dist/ first, as for a publish): the
 * built code and the files it reads at run time, nothing of the development tree. Installing
 * the tarball and starting it is `scripts/smoke-package.sh` (in CI): it needs the registry.
 */
interface PackedFile {
  readonly path: string;
  readonly mode: number;
}

const PACKAGE_SPECIFIER = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]+)?$/;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let workDir: string;
let packed: { files: PackedFile[]; entryCount: number; size: number; filename: string };
let paths: Set<string>;

/** Files under a source folder, as the paths they have in the package. */
const shippedAs = (sourceDir: string, keep: (file: string) => boolean): string[] => {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return keep(path) ? [`dist/${relative(repoRoot, path).split('\\').join('/')}`] : [];
    });
  return walk(join(repoRoot, sourceDir));
};

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'cogitave-pack-'));
  const output = execFileSync(npm, ['pack', '--json', '--pack-destination', workDir], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  [packed] = JSON.parse(output) as [typeof packed];
  paths = new Set(packed.files.map((file) => file.path));
  // The files as installed: read from the tarball, not from the checkout's dist/.
  execFileSync('tar', ['-xzf', join(workDir, packed.filename), '-C', workDir]);
  process.stderr.write(
    `package: ${packed.filename} ${String(Math.round(packed.size / 1024))} KiB, ${String(packed.entryCount)} files\n`,
  );
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('npm pack: the package holds what runs and nothing of the development tree', () => {
  it('given the tarball, then it holds the executable CLI, package.json and README, and no tests, sources, maps or tooling', () => {
    const cli = packed.files.find((file) => file.path === 'dist/bin/cogitave.js');
    expect(cli).toBeDefined();
    expect(cli!.mode & 0o111).not.toBe(0);
    expect(paths.has('package.json')).toBe(true);
    expect(paths.has('README.md')).toBe(true);
    const outsideDist = [...paths].filter((path) => !path.startsWith('dist/'));
    expect(outsideDist.sort()).toEqual(
      ['LICENSE', 'LICENSE.md', 'README.md', 'package.json'].filter((path) => paths.has(path)),
    );
    const misplaced = [...paths].filter(
      (path) =>
        /(^|\/)test\//.test(path) ||
        /\.test\.js$/.test(path) ||
        path.endsWith('.map') ||
        (path.endsWith('.ts') && !path.startsWith('dist/services/catalog/corpus/')),
    );
    expect(misplaced).toEqual([]);
  });

  it('given the tarball, then every migration, every corpus file and the console assets are inside', () => {
    const migrations = ['services', 'projections'].flatMap((dir) =>
      shippedAs(dir, (path) => path.endsWith('.sql')),
    );
    expect(migrations.length).toBeGreaterThanOrEqual(10);
    const corpus = shippedAs(join('services', 'catalog', 'corpus'), () => true);
    expect(corpus.some((path) => path.endsWith('.ts'))).toBe(true);
    const assets = shippedAs(join('mcp-gateway', 'console', 'assets'), () => true);
    const missing = [...migrations, ...corpus, ...assets].filter((path) => !paths.has(path));
    expect(missing).toEqual([]);
  });

  it('given the tarball, then it ships a template of a fresh data folder for the PGlite build it depends on, and the template unpacks into one', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const template = `dist/pglite-template/pglite-${manifest.dependencies['@electric-sql/pglite'] ?? ''}-datadir.tar.gz`;
    expect(paths.has(template)).toBe(true);
    const dataDir = join(workDir, 'fresh-data-folder');
    unpackTemplate(readFileSync(join(workDir, 'package', template)), dataDir);
    expect(readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim()).toMatch(/^\d+$/);
  });

  it('given the packed package.json, then it is publishable and its bin names a shipped file', () => {
    const manifest = JSON.parse(readFileSync(join(workDir, 'package', 'package.json'), 'utf8')) as {
      private?: boolean;
      bin: Record<string, string>;
    };
    expect(manifest.private).toBeUndefined();
    for (const target of Object.values(manifest.bin)) {
      expect(paths.has(target.replace(/^\.\//, ''))).toBe(true);
    }
  });

  it('given the shipped JavaScript, then every package it imports is a runtime dependency', () => {
    const manifest = JSON.parse(readFileSync(join(workDir, 'package', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // Loaded only when present, inside a try (samples are then left unchecked): a production
    // install may lack it by design.
    const optional = new Set(['typescript']);
    const builtins = new Set(builtinModules);
    const unlisted = new Map<string, string>();
    for (const path of paths) {
      if (!path.endsWith('.js') || path.startsWith('dist/mcp-gateway/console/assets/')) continue;
      const code = readFileSync(join(workDir, 'package', path), 'utf8');
      for (const match of code.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)["']([^"']+)["']/gm,
      )) {
        const specifier = match[1]!;
        // Text that merely reads like an import (log messages, templates) names no package.
        if (!PACKAGE_SPECIFIER.test(specifier) || specifier.startsWith('node:')) continue;
        const name = specifier.startsWith('@')
          ? specifier.split('/').slice(0, 2).join('/')
          : specifier.split('/')[0]!;
        if (builtins.has(name) || optional.has(name) || name in manifest.dependencies) continue;
        unlisted.set(name, path);
      }
    }
    expect(Object.fromEntries(unlisted)).toEqual({});
  });
});
