import { describe, expect, it } from 'vitest';
import {
  DEFINITION_OF_DONE,
  describeDod,
  dodFor,
  unmetDod,
  type RequestFacts,
} from '../../../lifecycle/dod.js';
import { mergeEvidence } from '../../../lifecycle/evidence.js';
import { STAGES } from '../../../lifecycle/stages.js';
import { EVIDENCE_TO_LEAVE, facts } from './fixtures.js';

interface ItemCase {
  readonly satisfied: RequestFacts;
  readonly unsatisfied: RequestFacts;
  /** A piece of the failure detail, so the agent learns what exactly is missing. */
  readonly detail: string;
}

const green = [{ name: 'ci/test', conclusion: 'success' as const }];

/** One satisfied and one unsatisfied case for every item of the catalogue. */
const CASES: Readonly<Record<string, ItemCase>> = {
  'proposed.problem-statement': {
    satisfied: facts(),
    unsatisfied: facts({}, { problem: 'It is broken.' }),
    detail: 'at least 30 characters',
  },
  'proposed.requester': {
    satisfied: facts(),
    unsatisfied: facts({}, { requester: ' ' }),
    detail: 'who needs this',
  },
  'proposed.product': {
    satisfied: facts(),
    unsatisfied: facts({}, { product: '' }),
    detail: 'product',
  },
  'proposed.acceptance-criteria': {
    satisfied: facts(),
    unsatisfied: facts({}, { acceptanceCriteria: [] }),
    detail: 'at least one measurable criterion',
  },
  'accepted.spec-link': {
    satisfied: facts({ specLink: 'https://example.org/spec' }),
    unsatisfied: facts({ testPlan: 'plan' }),
    detail: 'evidence.specLink is missing',
  },
  'specified.spec-link': {
    satisfied: facts({ specLink: 'https://example.org/spec' }),
    unsatisfied: facts({}),
    detail: 'evidence.specLink is missing',
  },
  'specified.test-plan': {
    satisfied: facts({ testPlan: 'Run the export test suite.' }),
    unsatisfied: facts({ rollbackPlan: 'revert' }),
    detail: 'evidence.testPlan is missing',
  },
  'specified.rollback-plan': {
    satisfied: facts({ rollbackPlan: 'Revert the PR.' }),
    unsatisfied: facts({ testPlan: 'tests' }),
    detail: 'evidence.rollbackPlan is missing',
  },
  'in_progress.change-link': {
    satisfied: facts({ links: ['https://github.com/o/r/pull/1'] }),
    unsatisfied: facts({ links: [] }),
    detail: 'evidence.links is empty',
  },
  'in_progress.checks-reported': {
    satisfied: facts({ checks: [{ name: 'ci', conclusion: 'pending' }] }),
    unsatisfied: facts({}),
    detail: 'evidence.checks is empty',
  },
  'in_review.checks-green': {
    satisfied: facts({ checks: green }),
    unsatisfied: facts({
      checks: [
        { name: 'ci/test', conclusion: 'success' },
        { name: 'ci/lint', conclusion: 'failure' },
        { name: 'ci/e2e', conclusion: 'pending' },
      ],
    }),
    detail: 'not green: ci/lint (failure), ci/e2e (pending)',
  },
  'in_review.criteria-evidence': {
    satisfied: facts({ criteria: { 'ac-1': 'test a', 'ac-2': 'test b' } }),
    unsatisfied: facts({ criteria: { 'ac-1': 'test a' } }),
    detail: 'no evidence for ac-2',
  },
  'verifying.verification': {
    satisfied: facts({ verification: 'Seen on staging.' }),
    unsatisfied: facts({ notes: 'notes are not verification' }),
    detail: 'evidence.verification is missing',
  },
  'verifying.checks-green': {
    satisfied: facts({ checks: green }),
    unsatisfied: facts({ checks: [] }),
    detail: 'evidence.checks is empty',
  },
};

const allItems = STAGES.flatMap((stage) => dodFor(stage));

describe('Definition of Done catalogue', () => {
  it('given the catalogue, when listing item ids, then each is unique, prefixed by its stage and has a case here', () => {
    const ids = allItems.map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const item of allItems) expect(item.id.startsWith(`${item.stage}.`)).toBe(true);
    expect(ids.sort()).toEqual(Object.keys(CASES).sort());
  });

  it('given the design, when reading the required items, then proposed, specified and in_review hold what DESIGN.md demands', () => {
    const ids = (stage: (typeof STAGES)[number]) => dodFor(stage).map((item) => item.id);
    expect(ids('proposed')).toEqual([
      'proposed.problem-statement',
      'proposed.requester',
      'proposed.product',
      'proposed.acceptance-criteria',
    ]);
    expect(ids('specified')).toEqual([
      'specified.spec-link',
      'specified.test-plan',
      'specified.rollback-plan',
    ]);
    expect(ids('in_review')).toEqual(['in_review.checks-green', 'in_review.criteria-evidence']);
  });

  it('given terminal stages and deferred, when reading their DoD, then it is empty', () => {
    for (const stage of ['done', 'rejected', 'withdrawn', 'superseded', 'deferred'] as const) {
      expect(DEFINITION_OF_DONE[stage]).toEqual([]);
    }
  });

  it('given evidence items, when reading descriptions, then each names the evidence field to attach', () => {
    for (const item of allItems.filter((i) => i.stage !== 'proposed')) {
      expect(item.description).toMatch(/evidence\.[a-zA-Z]+/);
    }
  });

  for (const [id, { satisfied, unsatisfied, detail }] of Object.entries(CASES)) {
    const item = allItems.find((candidate) => candidate.id === id);
    it(`given facts that satisfy ${id}, when checked, then it is met`, () => {
      expect(item?.check(satisfied)).toEqual({ met: true });
    });
    it(`given facts that do not satisfy ${id}, when checked, then it is unmet with "${detail}"`, () => {
      const result = item?.check(unsatisfied);
      expect(result?.met).toBe(false);
      expect(result && !result.met ? result.detail : '').toContain(detail);
    });
  }

  it('given facts missing two specified items, when listing unmet items, then they come in catalogue order with descriptions', () => {
    const unmet = unmetDod('specified', facts({ specLink: 'https://example.org/spec' }));
    expect(unmet.map((item) => item.id)).toEqual([
      'specified.test-plan',
      'specified.rollback-plan',
    ]);
    expect(unmet[0]?.description).toContain('evidence.testPlan');
  });

  it('given the evidence that leaves each stage, when checked, then nothing is unmet', () => {
    for (const stage of STAGES)
      expect(unmetDod(stage, facts(EVIDENCE_TO_LEAVE[stage]))).toEqual([]);
  });

  it('given a stage, when describing the DoD for get_dod, then ids and descriptions are served without checks', () => {
    expect(describeDod('accepted')).toEqual([
      {
        stage: 'accepted',
        items: [
          {
            id: 'accepted.spec-link',
            description: expect.stringContaining('evidence.specLink') as string,
          },
        ],
      },
    ]);
    expect(describeDod().map((entry) => entry.stage)).toEqual([...STAGES]);
  });
});

describe('mergeEvidence', () => {
  it('given accumulated evidence, when a newer proposal adds some, then plain fields and checks are replaced, criteria merged, links united', () => {
    const merged = mergeEvidence(
      {
        specLink: 'https://example.org/old',
        testPlan: 'old plan',
        checks: [{ name: 'ci', conclusion: 'success' }],
        criteria: { 'ac-1': 'old' },
        links: ['https://a.example'],
      },
      {
        specLink: 'https://example.org/new',
        checks: [{ name: 'ci', conclusion: 'failure' }],
        criteria: { 'ac-2': 'new' },
        links: ['https://b.example', 'https://a.example'],
      },
    );
    expect(merged).toEqual({
      specLink: 'https://example.org/new',
      testPlan: 'old plan',
      checks: [{ name: 'ci', conclusion: 'failure' }],
      criteria: { 'ac-1': 'old', 'ac-2': 'new' },
      links: ['https://a.example', 'https://b.example'],
    });
  });

  it('given a newer proposal with an explicit undefined field, when merged, then the older value survives', () => {
    expect(mergeEvidence({ testPlan: 'plan' }, { testPlan: undefined })).toEqual({
      testPlan: 'plan',
    });
  });
});
