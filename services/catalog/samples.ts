import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TypeScript from 'typescript';

/**
 * Compile checks of TypeScript/JavaScript samples with the TypeScript compiler API: one
 * program for all samples (one type-check of the shared libraries instead of one per sample),
 * an in-memory host for the samples themselves, placed under the project root so that module
 * resolution finds this project's `node_modules` (samples may import the MCP SDKs).
 */
export interface SampleSource {
  readonly uid: string;
  readonly language: string;
  readonly code: string;
}

/** `types`: a full TypeScript type check; `syntax`: parsed only (fragments of other projects). */
export type CheckMode = 'types' | 'syntax';

export interface SampleCheck {
  readonly mode: CheckMode;
  readonly compiled: boolean;
  /** `line:column message`, the first few, relative to the sample. */
  readonly diagnostics: readonly string[];
}

export const CHECKED_LANGUAGES: ReadonlySet<string> = new Set([
  'typescript',
  'javascript',
  'tsx',
  'jsx',
]);

const EXTENSIONS: Readonly<Record<string, string>> = {
  typescript: 'mts',
  javascript: 'mjs',
  tsx: 'tsx',
  jsx: 'jsx',
};
const MAX_DIAGNOSTICS = 5;

/** The nearest folder above this file with `node_modules/typescript` (the project root). */
export const findProjectRoot = (
  from: string = fileURLToPath(import.meta.url),
): string | undefined => {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'node_modules', 'typescript', 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
};

// Required, not imported: importing the 9 MB CommonJS file from ESM makes Node scan it for
// export names first (~0.8 s of CPU, half the cost of loading it).
const loadTypeScript = (): Promise<typeof TypeScript | undefined> => {
  try {
    return Promise.resolve(createRequire(import.meta.url)('typescript') as typeof TypeScript);
  } catch {
    // Production installs may omit dev dependencies: samples then stay unchecked.
    return Promise.resolve(undefined);
  }
};

/**
 * Checks the samples whose language is TypeScript or JavaScript (JSX too). Returns undefined
 * when the compiler is not installed (the samples' `compiled` attribute then stays absent).
 * `syntax` only parses them: no module resolution, no libraries, milliseconds for thousands.
 */
export const checkSamples = async (
  samples: readonly SampleSource[],
  mode: CheckMode = 'types',
  projectRoot: string | undefined = findProjectRoot(),
): Promise<Map<string, SampleCheck> | undefined> => {
  const checkable = samples.filter((sample) => CHECKED_LANGUAGES.has(sample.language));
  if (checkable.length === 0) return new Map();
  const ts = await loadTypeScript();
  if (!ts || !projectRoot) return undefined;
  const options: TypeScript.CompilerOptions = {
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
    types: ['node'],
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    noUnusedLocals: false,
    jsx: ts.JsxEmit.Preserve,
    ...(mode === 'syntax' ? { noResolve: true, noLib: true, types: [] } : {}),
  };
  const root = join(projectRoot, '.catalog-samples');
  // One file per different sample: versions of a site repeat their samples many times over.
  const files = new Map<string, { uids: string[]; code: string }>();
  const fileOf = new Map<string, string>();
  for (const sample of checkable) {
    const key = `${sample.language}\n${sample.code}`;
    const known = fileOf.get(key);
    if (known !== undefined) {
      files.get(known)?.uids.push(sample.uid);
      continue;
    }
    const extension = EXTENSIONS[sample.language] ?? 'mjs';
    const fileName = join(root, `sample-${fileOf.size}.${extension}`);
    fileOf.set(key, fileName);
    files.set(fileName, { uids: [sample.uid], code: sample.code });
  }
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const virtual = files.get(fileName);
    return virtual
      ? ts.createSourceFile(fileName, virtual.code, languageVersion, true)
      : getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => files.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => files.get(fileName)?.code ?? readFile(fileName);
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const results = new Map<string, SampleCheck>();
  for (const [fileName, { uids }] of files) {
    const sourceFile = program.getSourceFile(fileName);
    const diagnostics = sourceFile
      ? [
          ...program.getSyntacticDiagnostics(sourceFile),
          ...(mode === 'types' ? program.getSemanticDiagnostics(sourceFile) : []),
        ]
      : [];
    const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
    const check: SampleCheck = {
      mode,
      compiled: errors.length === 0,
      diagnostics: errors.slice(0, MAX_DIAGNOSTICS).map((diagnostic) => {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
        if (!diagnostic.file || diagnostic.start === undefined) return message;
        const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        return `${line + 1}:${character + 1} TS${diagnostic.code}: ${message}`;
      }),
    };
    for (const uid of uids) results.set(uid, check);
  }
  return results;
};
