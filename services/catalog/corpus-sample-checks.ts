import type { NodeContent } from './content.js';
import type { LoadCorpusOptions } from './corpus.js';
import { checkSamples, CHECKED_LANGUAGES, type SampleCheck } from './samples.js';

/**
 * Checks the code samples among `nodes` (or takes a known check) and records each outcome in
 * the sample's attributes.
 */
export const attachSampleChecks = async (
  nodes: Map<string, NodeContent>,
  options: LoadCorpusOptions,
): Promise<void> => {
  const mode = options.checkSamples ?? 'syntax';
  if (mode === false) return;
  const samples = [...nodes.values()].filter(
    (node) =>
      node.label === 'CodeSample' && CHECKED_LANGUAGES.has(String(node.attributes.language)),
  );
  const known = new Map<string, SampleCheck>();
  const toCheck = samples.filter((sample) => {
    const check = options.knownCheck?.(sample.uid, String(sample.attributes.language), sample.body);
    if (check?.mode === mode || (check && mode === 'syntax')) known.set(sample.uid, check);
    return !known.has(sample.uid);
  });
  const checked = await checkSamples(
    toCheck.map((s) => ({ uid: s.uid, language: String(s.attributes.language), code: s.body })),
    mode,
  );
  for (const sample of samples) {
    const check = known.get(sample.uid) ?? checked?.get(sample.uid);
    if (!check) continue;
    nodes.set(sample.uid, {
      ...sample,
      attributes: {
        ...sample.attributes,
        compiled: check.compiled,
        check: check.mode,
        ...(check.compiled ? {} : { diagnostics: [...check.diagnostics] }),
      },
    });
  }
};
