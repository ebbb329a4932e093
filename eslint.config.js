// Typed lint: rules that need the type checker (floating promises, unsafe any) catch the
// async mistakes an event store and its subscribers are prone to.
import { posix, relative, sep } from 'node:path';
import js from '@eslint/js';
import ts from 'typescript';
import tseslint from 'typescript-eslint';

const ROOT = import.meta.dirname;

/** The linted file's path from the repository root, with forward slashes ('' outside it). */
const repoPath = (filename) => {
  const path = relative(ROOT, filename).split(sep).join('/');
  return path.startsWith('..') ? '' : path;
};

/**
 * The layering, as one rule (`layers/imports`; test/unit/lint/layers.heavy.test.ts proves each
 * layer fires and that the imports today's tree makes stay allowed). Each import is resolved to
 * where it leads: a repository path (`services/requests/read-model/queries.js`, as written) or
 * a package name. The first layer that covers the importing file and refuses the target names
 * it. One rule with its own table, rather than `no-restricted-imports` blocks: a file falls
 * under several layers (services/event-store/x.ts is in services/, in the infrastructure and
 * in the product code), and a later block's options would replace an earlier one's, not add.
 *
 * What a capability shows the others (the last layer): from outside `services/<capability>/`,
 * - its read model (`read-model/`) is reached through its query modules (`read-model/queries.ts`,
 *   `read-model/<reader>-queries.ts`: its reads) and `read-model/state.ts` (its documents) only; `read-model/projection.ts` only from `bin/`,
 *   which composes the read models (bin/read-models.ts); its rows, bulk rebuild and
 *   migrations never;
 * - a worker thread's entry module (`*-worker.ts`) never: it is started by its own folder, by
 *   URL (services/threads/ is the thread machinery itself, and is not a capability);
 * - every other module of the folder is public.
 * Tests (test/**) are outside the layering.
 */
/** Refuses every target but these paths and packages (by default every package). */
const only =
  (paths, packages = /^/) =>
  (target) =>
    target.path === undefined ? !packages.test(target.package) : !paths.test(target.path);
/** Refuses these paths and packages (by default no package: `(?!)` matches nothing). */
const never =
  (paths, packages = /(?!)/) =>
  (target) =>
    target.path === undefined ? packages.test(target.package) : paths.test(target.path);

/** Public from outside its capability; see above. `file` imports `path`. */
const reachesInternals = ({ path }, file) => {
  const owner = path?.match(/^services\/([^/]+)\//)?.[1];
  if (owner === undefined || owner === 'threads' || file.startsWith(`services/${owner}/`))
    return false;
  const inReadModel = path.slice(`services/${owner}/`.length).match(/^read-model\/(.+)$/)?.[1];
  if (inReadModel !== undefined) {
    if (/^((\w+-)*queries|state)\.[jt]s$/.test(inReadModel)) return false;
    return !(/^projection\.[jt]s$/.test(inReadModel) && file.startsWith('bin/'));
  }
  return /-worker\.[jt]s$/.test(path);
};

const LAYERS = [
  {
    // The lifecycle is pure: the machine, forms and rules, on xstate and zod only. The
    // drift-checked TRANSITIONS.md writer is a development script, never imported.
    files: /^lifecycle\/(?!write-transitions\.ts$)/,
    refuses: only(/^lifecycle\//, /^(xstate|zod)(\/|$)/),
    message:
      'lifecycle/ is pure: it imports its own files, xstate and zod only (no I/O, no services).',
  },
  {
    files: /^(services|projections)\//,
    refuses: never(/^mcp-gateway\//),
    message:
      'services/ and projections/ never import the gateway; it depends on them, not the reverse.',
  },
  {
    files: /^services\/runtime\//,
    refuses: only(/^services\/runtime\//),
    message:
      'services/runtime/ is the ground (config, logger, errors): it imports its own files and packages only, no other services folder.',
  },
  {
    files: /^services\/event-store\//,
    refuses: only(/^services\/(event-store|database|runtime)\//),
    message:
      'The event store is infrastructure: it imports the database and runtime only, no capability.',
  },
  {
    files: /^projections\//,
    refuses: only(/^(projections|services\/(runtime|database|event-store|threads|access))\//),
    message:
      'projections/ is the machinery only: it imports services/runtime, database, event-store, threads and access, never a capability (bin/read-models.ts hands it the read models).',
  },
  {
    files: /^mcp-gateway\/tools\//,
    refuses: never(
      /^(services\/(database|event-store)\/|services\/[^/]+\/read-model\/|projections\/)/,
      /^(pg|@electric-sql\/pglite|@eventstore\/db-client)(\/|$)/,
    ),
    message:
      'Tools reach data through capability services (context.services), never the database, the event store, a read model or a driver.',
  },
  {
    files: /^(services|projections|bin|mcp-gateway)\//,
    refuses: reachesInternals,
    message:
      "That is another capability's internals: from outside, a read model is reached through its query modules (read-model/queries.ts, read-model/*-queries.ts) and state.ts (its projection.ts from bin/ only), and a *-worker.ts never (see eslint.config.js).",
  },
];

/** Where `specifier`, imported from `file`, leads. */
const targetOf = (file, specifier) =>
  specifier.startsWith('.')
    ? { path: posix.normalize(posix.join(posix.dirname(file), specifier)) }
    : { package: specifier };

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'The layering: which folder may import which (see eslint.config.js).' },
    schema: [],
  },
  create: (context) => {
    const file = repoPath(context.filename);
    const layers = LAYERS.filter((layer) => layer.files.test(file));
    if (layers.length === 0) return {};
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const target = targetOf(file, source.value);
      const refused = layers.find((layer) => layer.refuses(target, file));
      if (refused) context.report({ node: source, message: refused.message });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

/**
 * Only the command kernel (services/commands/: `runCommand` and the bookkeeping log) and the
 * event store itself append: `.append` or `.appendAtomically` of the `EventStore` port
 * (services/event-store/types.ts), or of anything assignable to it (an adapter), is an error
 * anywhere else — called, bound or passed on alike. Types decide, not names: `URLSearchParams.append`,
 * `Headers.append` and the MCP SDK's own event store are left alone.
 */
const PORT_FILE = 'services/event-store/types.ts';
const APPENDS = new Set(['append', 'appendAtomically']);
const NOT_A_STORE = ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never;

const portTypes = new WeakMap();
/** The `EventStore` interface's type in this program (null when the program lacks it). */
const portTypeOf = (program) => {
  if (!portTypes.has(program)) {
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(`${ROOT}/${PORT_FILE}`);
    const module = source && checker.getSymbolAtLocation(source);
    const port = module && checker.getExportsOfModule(module).find((s) => s.name === 'EventStore');
    portTypes.set(program, port ? checker.getDeclaredTypeOfSymbol(port) : null);
  }
  return portTypes.get(program);
};

/** A member declared on the port itself (a value typed `EventStore`, or a Pick of it). */
const isPortMember = (declaration) =>
  repoPath(declaration.getSourceFile().fileName) === PORT_FILE &&
  declaration.parent?.name?.text === 'EventStore';

const noDirectAppendRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Appends go through the command kernel or the bookkeeping log.' },
    schema: [],
  },
  create: (context) => {
    const services = context.sourceCode.parserServices;
    if (!services?.program) return {};
    const checker = services.program.getTypeChecker();
    const port = portTypeOf(services.program);
    const isStore = (object, property) => {
      if (services.getSymbolAtLocation(property)?.declarations?.some(isPortMember)) return true;
      if (!port) return false;
      const type = checker.getNonNullableType(services.getTypeAtLocation(object));
      return (type.isUnion() ? type.types : [type]).some(
        (part) => (part.flags & NOT_A_STORE) === 0 && checker.isTypeAssignableTo(part, port),
      );
    };
    return {
      MemberExpression: (callee) => {
        if (callee.computed || !APPENDS.has(callee.property.name)) return;
        if (!isStore(callee.object, callee.property)) return;
        context.report({
          node: callee.property,
          message: `Only services/commands/ (runCommand, the bookkeeping log) and services/event-store/ append to the event store; run a command, or record bookkeeping events through createBookkeepingLog.`,
        });
      },
    };
  },
};

const local = { rules: { imports: importsRule, 'no-direct-append': noDirectAppendRule } };

/** Product code: everything but tests. */
const PRODUCT = [
  'bin/**/*.ts',
  'services/**/*.ts',
  'projections/**/*.ts',
  'mcp-gateway/**/*.ts',
  'lifecycle/**/*.ts',
];

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', '.cogitave/**', 'test/fixtures/docs-sites/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { layers: local },
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allow: [{ name: ['BigInt'], from: 'lib' }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='only']", message: 'No .only in tests.' },
      ],
      'layers/imports': 'error',
    },
  },
  {
    files: PRODUCT,
    ignores: ['**/*.test.ts'],
    rules: {
      // A function fits one sitting; a longer one says why in an eslint-disable-next-line
      // comment (`-- reason`).
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: PRODUCT,
    ignores: ['services/commands/**', 'services/event-store/**', '**/*.test.ts'],
    rules: { 'layers/no-direct-append': 'error' },
  },
  {
    // Tests state their preconditions with `!` where a failed lookup fails the test anyway.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // The console's one browser script.
    files: ['mcp-gateway/console/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'fetch',
          'EventSource',
          'DOMParser',
          'setTimeout',
          'clearTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
