import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runTool,
  type ToolCallContext,
  type ToolDefinition,
} from '../../../mcp-gateway/registry.js';
import { docsFetchTool } from '../../../mcp-gateway/tools/docs-fetch.js';
import { resolveXrefTool } from '../../../mcp-gateway/tools/resolve-xref.js';
import { loadCorpus } from '../../../services/catalog/corpus.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { makeCorpus, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import {
  catalogToolContext,
  ingestRunMeta,
  openCatalogBed,
  toolFailure,
  type CatalogBed,
} from './support.js';

/**
 * A DocFX / Learn site laid out as dotnet/docs-maui is (docfx.json under docs/, the repository
 * root above it, `~/` links, moniker zones, an excluded includes folder), beside an MkDocs, a
 * VitePress and a Mintlify site: given each ingested with its public URL, when an agent
 * resolves the URLs readers see, then the page, version and section they show.
 */
const DOCFX_JSON = {
  build: {
    content: [
      {
        files: ['**/*.md', '**/*.yml'],
        exclude: ['**/obj/**', '**/includes/**', 'README.md'],
        group: 'net',
        src: '.',
      },
    ],
    dest: 'docs-maui-public',
    groups: { net: { dest: 'net-dest', moniker_range: '>=net-maui-8.0' } },
  },
};
const DOCFX_SITE: Record<string, string> = {
  'README.md': '# The repository\n\nHow to contribute.\n',
  'docs/docfx.json': JSON.stringify(DOCFX_JSON),
  'docs/TOC.yml':
    '- name: .NET MAUI\n  items:\n    - name: Overview\n      href: index.md\n    - name: Install it\n      href: get-started/installation.md?tabs=windows\n    - name: Emulator\n      href: ~/android/emulator/device-manager.md\n',
  'docs/index.md':
    '# .NET MAUI\n\n## Welcome\n\nStart with [installing](~/get-started/installation.md#windows).\n',
  'docs/get-started/installation.md': [
    '---',
    'title: Install .NET MAUI',
    '---',
    '# Install .NET MAUI',
    '',
    'What every version needs.',
    '',
    '## Windows',
    '',
    '::: moniker range="<=net-maui-9.0"',
    'Install the workload with Visual Studio 2022.',
    '::: moniker-end',
    '',
    '## Android emulator',
    '',
    ':::moniker range=">=net-maui-10.0"',
    'Use the [device manager](~/android/emulator/device-manager.md) or go [home](/dotnet/maui/#welcome).',
    '::: moniker-end',
    '',
  ].join('\n'),
  'docs/android/emulator/device-manager.md':
    '---\nmonikerRange: ">=net-maui-10.0"\n---\n# Device manager\n\n[!INCLUDE [levels](~/android/includes/levels.md)]\n\nCreate a virtual device.\n',
  'docs/android/includes/levels.md': 'API levels 21 to 35.\n',
};
const MKDOCS_SITE: Record<string, string> = {
  'mkdocs.yml': 'site_name: Mk\nsite_url: https://mk.example/proj/\ndocs_dir: docs\n',
  'docs/index.md': '# Mk\n\nHome.\n',
  'docs/guide/install.md': '# Install\n\n## Linux\n\nUse the package manager.\n',
};
const VITEPRESS_SITE: Record<string, string> = {
  '.vitepress/config.ts': 'export default {};\n',
  'index.md': '# Vp\n\nHome.\n',
  'guide/getting-started.md': '# Getting started\n\n## Installation\n\nRun the installer.\n',
};
const MINTLIFY_SITE: Record<string, string> = {
  'docs.json': JSON.stringify({
    navigation: {
      versions: [
        { version: '2025-11-25', default: true, pages: ['spec/2025-11-25/client/sampling'] },
        { version: 'Draft', pages: ['spec/draft/client/sampling'] },
      ],
    },
  }),
  'spec/2025-11-25/client/sampling.mdx': '# Sampling\n\n## Capabilities\n\nClients declare it.\n',
  'spec/draft/client/sampling.mdx': '# Sampling\n\n## Capabilities\n\nClients may declare it.\n',
};

const SITES = [
  { source: 'maui', files: DOCFX_SITE, baseUrl: 'https://learn.microsoft.com/dotnet/maui/' },
  { source: 'mk', files: MKDOCS_SITE, baseUrl: undefined }, // its site_url
  { source: 'vp', files: VITEPRESS_SITE, baseUrl: 'https://vp.example/' },
  { source: 'mint', files: MINTLIFY_SITE, baseUrl: 'https://mint.example/' },
] as const;

describe('a DocFX site and public URLs of every generator (postgres)', () => {
  let catalog: CatalogBed;
  let context: ToolCallContext;
  const folders = new Map<string, CorpusFolder>();
  const meta = ingestRunMeta('test:docfx-site');

  const call = (tool: ToolDefinition, args: unknown): Promise<Record<string, unknown>> =>
    runTool(tool, args, context);
  const failure = (tool: ToolDefinition, args: unknown): Promise<CogitaveError> =>
    toolFailure(tool, args, context);

  beforeAll(async () => {
    catalog = await openCatalogBed('docfx_site');
    let last: string | null = null;
    for (const site of SITES) {
      const folder = await makeCorpus(site.files);
      folders.set(site.source, folder);
      const report = await ingestCorpus(catalog.bed.store, {
        dir: folder.dir,
        source: site.source,
        ...(site.baseUrl ? { baseUrl: site.baseUrl } : {}),
        checkSamples: false,
        meta: meta(),
      });
      expect(report.errors).toEqual([]);
      last = report.lastPosition ?? last;
    }
    await catalog.caughtUp(last);
    context = catalogToolContext(catalog.bed.database.pool);
  });
  afterAll(async () => {
    await catalog.close();
    for (const folder of folders.values()) await folder.cleanup();
  });

  it('given docfx.json under docs/, when loaded, then routes from it, ~/ links as edges, includes not pages', async () => {
    const corpus = await loadCorpus(folders.get('maui')?.dir ?? '', {
      source: 'maui',
      baseUrl: 'https://learn.microsoft.com/dotnet/maui/',
      checkSamples: false,
    });
    const pages = corpus.nodes.filter((node) => node.label !== 'CodeSample');
    expect(pages.map((node) => [node.sourcePath, node.path]).sort()).toEqual([
      ['docs/android/emulator/device-manager.md', '/android/emulator/device-manager'],
      ['docs/get-started/installation.md', '/get-started/installation'],
      ['docs/index.md', '/'],
    ]);
    expect(corpus.skipped.map((s) => s.file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/android/includes/levels.md']),
    );
    expect(corpus.dangling).toEqual([]);
    const edges = (file: string): string[] =>
      (pages.find((node) => node.sourcePath === file)?.edges ?? [])
        .filter((edge) => edge.origin === 'text')
        .map((edge) => `${edge.target}#${edge.anchor ?? ''}`);
    expect(edges('docs/index.md')).toEqual(['maui/get-started/installation#windows']);
    expect(edges('docs/get-started/installation.md').sort()).toEqual([
      'maui/android/emulator/device-manager#',
      `${pages.find((n) => n.path === '/')?.uid ?? '?'}#welcome`,
    ]);
    const install = pages.find((node) => node.path === '/get-started/installation');
    expect(install?.monikers).toEqual(['latest', 'net-maui-10.0', 'net-maui-8.0', 'net-maui-9.0']);
    expect(install?.body).not.toMatch(/moniker/i);
    expect(install?.attributes.navOrder).toBe(1);
    expect(
      install?.sections?.map((section) => [section.anchor, section.monikers ?? 'all']),
    ).toEqual([
      ['install-net-maui', 'all'],
      ['windows', ['net-maui-8.0', 'net-maui-9.0']],
      ['android-emulator', ['net-maui-10.0', 'latest']],
    ]);
    expect(pages.find((n) => n.path === '/android/emulator/device-manager')?.monikers).toEqual([
      'latest',
      'net-maui-10.0',
    ]);
  });

  it.each([
    [
      'https://learn.microsoft.com/dotnet/maui/get-started/installation?view=net-maui-9.0#windows',
      'maui/get-started/installation',
      'net-maui-9.0',
      'windows',
    ],
    [
      'https://learn.microsoft.com/dotnet/maui/android/emulator/device-manager',
      'maui/android/emulator/device-manager',
      'latest',
      null,
    ],
    ['/dotnet/maui/get-started/installation', 'maui/get-started/installation', 'latest', null],
    ['https://mk.example/proj/guide/install/#linux', 'mk/guide/install', 'latest', 'linux'],
    [
      'https://vp.example/guide/getting-started.html#installation',
      'vp/guide/getting-started',
      'latest',
      'installation',
    ],
    [
      'https://mint.example/spec/draft/client/sampling#capabilities',
      'mint/spec/draft/client/sampling',
      'draft',
      'capabilities',
    ],
    [
      'https://mint.example/spec/latest/client/sampling',
      'mint/spec/2025-11-25/client/sampling',
      'latest',
      null,
    ],
  ])(
    'given the public URL %s, when resolved, then %s (%s, section %s)',
    async (xref, uid, moniker, anchor) => {
      const resolved = await call(resolveXrefTool, { xref });
      expect(resolved).toMatchObject({ uid, moniker });
      expect((resolved.section as { anchor: string } | null)?.anchor ?? null).toBe(anchor);
    },
  );

  it('given a moniker the page has no content in, when resolved or fetched, then not found naming its monikers', async () => {
    const missing = await failure(resolveXrefTool, {
      xref: 'https://learn.microsoft.com/dotnet/maui/android/emulator/device-manager?view=net-maui-8.0',
    });
    expect(missing.code).toBe('NOT_FOUND');
    expect([...(missing.details.monikers as string[])].sort()).toEqual(['latest', 'net-maui-10.0']);
    const fetched = await call(docsFetchTool, {
      uid: 'maui/get-started/installation',
      moniker: 'net-maui-8.0',
    });
    expect(fetched.body).toContain('Visual Studio 2022');
    expect(fetched.body).not.toMatch(/moniker/i);
    const unknown = await failure(docsFetchTool, {
      uid: 'maui/android/emulator/device-manager',
      moniker: 'net-maui-9.0',
    });
    expect(unknown.code).toBe('NOT_FOUND');
  });
});
