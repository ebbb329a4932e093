import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/cli.js';
import { parseFinalStage, type ImageStage } from '../../support/dockerfile.js';

/**
 * The container image without a container engine (none runs here): the final stage of
 * infra/Dockerfile is read (ENV, WORKDIR, USER, VOLUME, EXPOSE, ENTRYPOINT, CMD), a folder is
 * laid out like the image (the build as dist/, package.json, node_modules; all root-owned and
 * read-only for others), and the exact ENTRYPOINT + CMD runs with exactly the image's ENV as
 * an unprivileged user, with the VOLUME being a folder that user owns. Differences from the
 * real image, on purpose: node_modules holds copies of the checkout's production dependencies, the
 * user is nobody (65534) instead of the image's node (1000), and the image's absolute paths
 * (WORKDIR, VOLUME) are mapped to the laid-out folders.
 */
const UNPRIVILEGED = 65534;
const READY_TIMEOUT_MS = 180_000;
const isRoot = process.getuid?.() === 0;

let image: ImageStage;
let layout: string;
let appDir: string;
let volumeDir: string;

/** An image path under WORKDIR or a VOLUME, as its folder in the layout. */
const mapPath = (value: string): string => {
  const volume = image.volumes[0]!;
  if (value === volume || value.startsWith(`${volume}/`)) {
    return volumeDir + value.slice(volume.length);
  }
  if (image.workdir && (value === image.workdir || value.startsWith(`${image.workdir}/`))) {
    return appDir + value.slice(image.workdir.length);
  }
  return value;
};

const imageEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  for (const [key, value] of Object.entries(image.env)) env[key] = mapPath(value);
  return { ...env, ...extra };
};

interface Run {
  readonly code: Promise<number | null>;
  stderr(): string;
  kill(signal: NodeJS.Signals): void;
}

/** The image's ENTRYPOINT + CMD, as the unprivileged user, in the image's WORKDIR. */
const runImage = (env: NodeJS.ProcessEnv): Run => {
  const child = spawn(
    'setpriv',
    [
      `--reuid=${String(UNPRIVILEGED)}`,
      `--regid=${String(UNPRIVILEGED)}`,
      '--clear-groups',
      ...image.entrypoint,
      ...image.cmd,
    ],
    { cwd: appDir, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return {
    code: new Promise((resolve) => {
      child.on('exit', (code) => {
        resolve(code);
      });
    }),
    stderr: () => stderr,
    kill: (signal) => {
      child.kill(signal);
    },
  };
};

const readyLine = async (run: Run): Promise<Record<string, unknown>> => {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const state = { exited: false };
  void run.code.then(() => {
    state.exited = true;
  });
  while (Date.now() < deadline && !state.exited) {
    for (const line of run.stderr().split('\n')) {
      if (!line.includes('"cogitave ready"')) continue;
      return JSON.parse(line) as Record<string, unknown>;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the image did not become ready:\n${run.stderr()}`);
};

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => {
      resolve(false);
    });
    probe.listen(port, '0.0.0.0', () => {
      probe.close(() => {
        resolve(true);
      });
    });
  });

/**
 * The checkout's production dependencies, as `npm prune --omit=dev` leaves them in the image.
 * Copied rather than linked: the checkout may sit in a folder the unprivileged user cannot
 * enter (a 0700 temporary folder), as an image's build stage never does.
 */
const copyProductionModules = (target: string): void => {
  const modules = join(repoRoot, 'node_modules');
  // npm ls exits non-zero on an extraneous or invalid package; the list is still whole.
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  }).stdout;
  if (!listed.includes(modules)) throw new Error('npm ls listed no production dependencies');
  const topLevel = new Set<string>();
  for (const path of listed.split('\n')) {
    const inside = relative(modules, path.trim());
    if (path.trim() === '' || inside.startsWith('..') || inside === '') continue;
    const [first, second] = inside.split(sep);
    topLevel.add(first!.startsWith('@') ? join(first!, second!) : first!);
  }
  for (const name of topLevel) {
    cpSync(join(modules, name), join(target, name), { recursive: true, verbatimSymlinks: true });
  }
};

beforeAll(() => {
  image = parseFinalStage(readFileSync(join(repoRoot, 'infra', 'Dockerfile'), 'utf8'));
  if (!isRoot) return;
  layout = mkdtempSync(join(tmpdir(), 'cogitave-image-'));
  chmodSync(layout, 0o755);
  appDir = join(layout, 'app');
  volumeDir = join(layout, 'volume');
  mkdirSync(appDir);
  // What the final stage copies from the build stage, made here the same way.
  for (const { source } of image.copiesFromStages) {
    const name = source.split('/').at(-1)!;
    if (name === 'dist') {
      execFileSync(process.execPath, [
        join(repoRoot, 'scripts', 'build.mjs'),
        join(appDir, 'dist'),
      ]);
    } else if (name === 'package.json') {
      copyFileSync(join(repoRoot, 'package.json'), join(appDir, 'package.json'));
    } else if (name === 'node_modules') {
      copyProductionModules(join(appDir, 'node_modules'));
    } else {
      throw new Error(`the image copies ${source}, which this test does not lay out`);
    }
  }
  mkdirSync(volumeDir);
  chownSync(volumeDir, UNPRIVILEGED, UNPRIVILEGED);
}, 120_000);

afterAll(() => {
  if (layout) rmSync(layout, { recursive: true, force: true });
});

describe('infra/Dockerfile: the image as declared', () => {
  it('given the final stage, then it listens on every interface at the EXPOSEd port, as a non-root user, with its data in the VOLUME', () => {
    expect(image.copiesFromStages.map(({ destination }) => destination).sort()).toEqual([
      './dist',
      './node_modules',
      './package.json',
    ]);
    expect(image.user).toBeDefined();
    expect(['root', '0']).not.toContain(image.user);
    expect(image.env.COGITAVE_HTTP_HOST).toBe('0.0.0.0');
    expect(image.exposedPorts).toEqual([Number(image.env.COGITAVE_HTTP_PORT)]);
    expect(image.volumes).toHaveLength(1);
    for (const key of ['COGITAVE_DATA_DIR', 'COGITAVE_DIGEST_DIR']) {
      expect(image.env[key]?.startsWith(`${image.volumes[0]!}/`)).toBe(true);
    }
    expect(image.entrypoint[0]).toBe('node');
    expect(image.cmd[0]).toBe('serve');
  });
});

describe.skipIf(!isRoot)('infra/Dockerfile: the image run as an unprivileged user', () => {
  // Skipped when not root: switching to another user needs root (setpriv).

  it('given the code is read-only for the user, then nothing in the layout is writable by others', () => {
    for (const path of [appDir, join(appDir, 'dist'), join(appDir, 'dist', 'bin', 'cogitave.js')]) {
      const stat = statSync(path);
      expect(stat.uid).toBe(0);
      expect(stat.mode & 0o002).toBe(0);
    }
    // node_modules must be readable (and its folders searchable) by that user.
    const modules = realpathSync(join(appDir, 'node_modules'));
    expect(statSync(modules).mode & 0o005).toBe(0o005);
  });

  it('given no MCP tokens, when the image starts, then it exits 78 with one line naming the bind and the tokens', async () => {
    const run = runImage(imageEnv({}));
    expect(await run.code).toBe(78);
    const lines = run.stderr().split('\n');
    const naming = lines.filter(
      (line) => line.includes('COGITAVE_HTTP_HOST') && line.includes('MCP_TOKENS'),
    );
    expect(naming).toHaveLength(1);
    expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([]);
  });

  it(
    'given MCP_TOKENS, when the image starts, then it is ready on the EXPOSEd port, /readyz is 200 and its data lands in the VOLUME',
    async () => {
      const exposed = image.exposedPorts[0]!;
      // The image's own port when it is free here; another only if something else holds it.
      const port = (await portIsFree(exposed)) ? exposed : 0;
      if (port !== exposed)
        process.stderr.write(`image test: port ${String(exposed)} is taken; using another\n`);
      const tokenHash = execFileSync('sha256sum', {
        input: 'image-test-token',
        encoding: 'utf8',
      }).split(' ')[0]!;
      const tokens = {
        [tokenHash]: {
          name: 'image-test',
          grants: {
            products: '*',
            types: '*',
            propose: false,
            writeNetworks: false,
            decide: false,
          },
        },
      };
      const run = runImage(
        imageEnv({
          MCP_TOKENS: JSON.stringify(tokens),
          ...(port === exposed ? {} : { COGITAVE_HTTP_PORT: '0' }),
        }),
      );
      try {
        const ready = await readyLine(run);
        const url = new URL(ready.url as string);
        if (port === exposed) expect(Number(url.port)).toBe(exposed);
        const readyz = await fetch(new URL('/readyz', url));
        expect(readyz.status).toBe(200);
        // Bound to every interface: answers on a non-loopback address too, where there is one.
        const external = Object.values(networkInterfaces())
          .flat()
          .find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
        if (external) {
          const healthz = await fetch(`http://${external.address}:${url.port}/healthz`);
          expect(healthz.status).toBe(200);
        }
      } finally {
        run.kill('SIGTERM');
      }
      expect(await run.code).toBe(0);
      const database = mapPath(image.env.COGITAVE_DATA_DIR!);
      const digests = mapPath(image.env.COGITAVE_DIGEST_DIR!);
      expect(readdirSync(database).length).toBeGreaterThan(0);
      expect(statSync(database).uid).toBe(UNPRIVILEGED);
      expect(existsSync(join(digests, 'latest.json'))).toBe(true);
    },
    READY_TIMEOUT_MS + 60_000,
  );
});
