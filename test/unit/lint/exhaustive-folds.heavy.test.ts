import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * A new event type does not compile until every fold and read model of its capability handles
 * it. Proven with the compiler: each capability's `events.ts` is served altered — one more
 * variant in its event union — and the capability's modules are type-checked. The slice's
 * fold and every module that must fold the events (each an exhaustive switch ending in
 * `event satisfies never`, or a function whose every path returns) must report an error; a
 * read model passes when it reports one itself or applies a fold that does. The unaltered
 * sources check clean, so every error below is the new variant's.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const at = (path: string): string => join(root, path);
const inRepo = (fileName: string): string => relative(root, fileName).split('\\').join('/');

interface Capability {
  readonly name: string;
  /** The module whose event union gains a variant, and the union's name. */
  readonly events: string;
  readonly union: string;
  /** The new variant's data: what every event of the capability carries at least. */
  readonly probeData: string;
  /** The slice's folds, by exported name: the module declaring each must report the variant. */
  readonly folds: readonly string[];
  /** Further modules that switch over the union themselves and must report the variant. */
  readonly exhaustive: readonly string[];
  /** The read models: each reports the variant, or applies one of the folds above. */
  readonly readModels: readonly string[];
}

const CAPABILITIES: readonly Capability[] = [
  {
    name: 'requests',
    events: 'services/requests/events.ts',
    union: 'RequestEvent',
    probeData: '{ readonly requestId: string }',
    folds: ['evolveRequest'],
    exhaustive: ['services/requests/parse.ts', 'services/requests/read-model/state.ts'],
    readModels: [
      'services/requests/read-model/projection.ts',
      'services/requests/read-model/bulk.ts',
    ],
  },
  {
    name: 'networks',
    events: 'services/networks/events.ts',
    union: 'NetworkEvent',
    probeData: '{ readonly networkName: string }',
    folds: ['evolve', 'foldNetworkBatch'],
    exhaustive: ['services/networks/parse.ts'],
    readModels: ['services/networks/read-model/projection.ts'],
  },
  {
    // The catalog's read model is being made exhaustive separately: until then this fails.
    name: 'catalog',
    events: 'services/catalog/events.ts',
    union: 'NodeEvent',
    probeData: 'NodeEventData',
    folds: ['evolveNode'],
    exhaustive: [],
    readModels: ['services/catalog/read-model/projection.ts'],
  },
];

const tsFiles = (directory: string): string[] =>
  readdirSync(at(directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));

/** Adds `{ type: 'ExhaustivenessProbed', data }` to the union `union` of `source`. */
const withProbe = (source: string, capability: Capability): string => {
  const declaration = `export type ${capability.union} =`;
  const [before, after, ...more] = source.split(declaration);
  if (before === undefined || after === undefined || more.length > 0) {
    throw new Error(`${capability.events} must declare "${declaration}" exactly once`);
  }
  return [
    before,
    `export type ${capability.union} = ExhaustivenessProbed | ${capability.union}BeforeProbe;\n`,
    `interface ExhaustivenessProbed {\n`,
    `  readonly type: 'ExhaustivenessProbed';\n`,
    `  readonly data: ${capability.probeData};\n`,
    `}\n`,
    `type ${capability.union}BeforeProbe =`,
    after,
  ].join('');
};

const parsedConfig = (): ts.CompilerOptions => {
  const parsed = ts.getParsedCommandLineOfConfigFile(at('tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error('tsconfig.json could not be read');
  return { ...parsed.options, noEmit: true };
};

const options = parsedConfig();
const baseHost = ts.createCompilerHost(options, true);
/** Unaltered files are parsed once and shared, so each altered program reuses them. */
const sourceFiles = new Map<string, ts.SourceFile | undefined>();

/** A host serving the repository as it is, except `altered` (path → text). */
const hostWith = (altered: ReadonlyMap<string, string>): ts.CompilerHost => ({
  ...baseHost,
  fileExists: (fileName) => altered.has(fileName) || baseHost.fileExists(fileName),
  readFile: (fileName) => altered.get(fileName) ?? baseHost.readFile(fileName),
  getSourceFile: (fileName, languageVersion) => {
    const text = altered.get(fileName);
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    if (!sourceFiles.has(fileName)) {
      sourceFiles.set(fileName, baseHost.getSourceFile(fileName, languageVersion));
    }
    return sourceFiles.get(fileName);
  },
});

const rootsOf = (capability: Capability): string[] => tsFiles(`services/${capability.name}`);

/** Repository paths of the files with errors, and the messages of each. */
const errorsByFile = (program: ts.Program, files: readonly string[]): Map<string, string[]> => {
  const errors = new Map<string, string[]>();
  for (const fileName of files) {
    const sourceFile = program.getSourceFile(fileName);
    if (!sourceFile) continue;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ];
    if (diagnostics.length === 0) continue;
    errors.set(
      inRepo(fileName),
      diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')),
    );
  }
  return errors;
};

/** The repository path of the capability module declaring the exported `name`. */
const declaringModule = (program: ts.Program, capability: Capability, name: string): string => {
  const checker = program.getTypeChecker();
  for (const fileName of rootsOf(capability)) {
    const sourceFile = program.getSourceFile(fileName);
    const module = sourceFile && checker.getSymbolAtLocation(sourceFile);
    const exported = module && checker.getExportsOfModule(module).find((s) => s.name === name);
    if (!exported) continue;
    const symbol =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = symbol.declarations?.[0];
    if (declaration) return inRepo(declaration.getSourceFile().fileName);
  }
  throw new Error(`no module of services/${capability.name} exports ${name}`);
};

/** The repository paths of the modules declaring what `file` refers to. */
const referencedModules = (program: ts.Program, file: string): Set<string> => {
  const checker = program.getTypeChecker();
  const sourceFile = program.getSourceFile(at(file));
  if (!sourceFile) throw new Error(`${file} is not in the program`);
  const modules = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const found = checker.getSymbolAtLocation(node);
      const symbol =
        found && found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
      for (const declaration of symbol?.declarations ?? []) {
        modules.add(inRepo(declaration.getSourceFile().fileName));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return modules;
};

let clean: ts.Program;

beforeAll(() => {
  const roots = CAPABILITIES.flatMap(rootsOf);
  clean = ts.createProgram({ rootNames: roots, options, host: hostWith(new Map()) });
}, 300_000);

describe('exhaustive folds', () => {
  it('given the sources as they are, when the capabilities are type-checked, then no errors', () => {
    const errors = errorsByFile(clean, CAPABILITIES.flatMap(rootsOf));
    expect(Object.fromEntries(errors)).toEqual({});
  }, 300_000);

  for (const capability of CAPABILITIES) {
    it(`given one more ${capability.union} variant, when ${capability.name} is type-checked, then every fold and read model reports it`, () => {
      const eventsFile = at(capability.events);
      const source = ts.sys.readFile(eventsFile);
      if (source === undefined) throw new Error(`${capability.events} is missing`);
      const roots = rootsOf(capability);
      const altered = ts.createProgram({
        rootNames: roots,
        options,
        host: hostWith(new Map([[eventsFile, withProbe(source, capability)]])),
        oldProgram: clean,
      });
      const errors = errorsByFile(altered, roots);
      const flagged = [...errors.keys()];
      const folds = capability.folds.map((name) => declaringModule(altered, capability, name));

      for (const module of [...folds, ...capability.exhaustive]) {
        expect(flagged, `${module} must report the new variant`).toContain(module);
      }
      for (const readModel of capability.readModels) {
        const appliesAFold = [...referencedModules(altered, readModel)].some((module) =>
          folds.includes(module),
        );
        expect(
          errors.has(readModel) || appliesAFold,
          `${readModel} must report the new variant or apply one of ${folds.join(', ')}`,
        ).toBe(true);
      }
    }, 300_000);
  }
});
