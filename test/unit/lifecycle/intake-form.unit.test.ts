import { describe, expect, it } from 'vitest';
import { parseIntakeForm } from '../../../lifecycle/intake-form.js';

const valid = {
  title: 'Export the audit log as CSV',
  problem: 'Auditors cannot export the audit log, so they copy rows by hand every month.',
  product: 'cogitave-core',
  requester: 'carol',
  acceptanceCriteria: [
    'The export contains every audit event of the chosen month',
    'An export of 100000 events completes in under 30 seconds',
  ],
};

/** The messages of a refused form, one per issue, each prefixed with its field path. */
const problems = (input: unknown): string[] => {
  const result = parseIntakeForm(input);
  if (result.success) return [];
  return result.issues.map((issue) => `${issue.path}: ${issue.message}`);
};

describe('intake form', () => {
  it('given a minimal valid form, when parsed, then defaults apply (priority medium, no links)', () => {
    const result = parseIntakeForm(valid);
    expect(result).toEqual({ success: true, data: { ...valid, links: [], priority: 'medium' } });
  });

  it('given padded text, when parsed, then it is trimmed', () => {
    const result = parseIntakeForm({ ...valid, title: '  Export the audit log as CSV  ' });
    expect(result.success && result.data.title).toBe('Export the audit log as CSV');
  });

  it('given links and a priority, when parsed, then they are kept', () => {
    const result = parseIntakeForm({
      ...valid,
      links: [{ url: 'https://github.com/o/r/issues/1', title: 'Original report' }],
      priority: 'high',
    });
    expect(result.success && result.data.priority).toBe('high');
    expect(result.success && result.data.links).toEqual([
      { url: 'https://github.com/o/r/issues/1', title: 'Original report' },
    ]);
  });

  it('given a short title, when parsed, then the message gives the rule and an example', () => {
    expect(problems({ ...valid, title: 'CSV' })).toEqual([
      'title: title needs at least 8 characters: a short summary such as "Export the audit log as CSV"',
    ]);
  });

  it('given a one-line problem, when parsed, then the message says what a problem statement holds', () => {
    expect(problems({ ...valid, problem: 'broken' })[0]).toMatch(
      /^problem: .*who is affected and what goes wrong/,
    );
  });

  it('given no product and no requester, when parsed, then both fields are named', () => {
    const messages = problems({ ...valid, product: '', requester: '' });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^product: /);
    expect(messages[1]).toMatch(/^requester: .*GitHub login/);
  });

  it('given no acceptance criteria, when parsed, then it asks for a measurable one', () => {
    expect(problems({ ...valid, acceptanceCriteria: [] })).toEqual([
      'acceptanceCriteria: acceptanceCriteria needs at least one measurable criterion: how will everyone know the request is done?',
    ]);
  });

  it('given a vague criterion without a number, when parsed, then it names the vague word and asks for a threshold', () => {
    expect(
      problems({
        ...valid,
        acceptanceCriteria: ['The export page should be fast and easy to use'],
      }),
    ).toEqual([
      'acceptanceCriteria.0: "The export page should be fast and easy to use" uses "fast", "easy" without a threshold: add the number that makes it checkable, e.g. "p95 latency under 300 ms at 50 requests/s" or "done in at most 3 steps"',
    ]);
  });

  it('given a vague word with a threshold, when parsed, then it is measurable and accepted', () => {
    expect(
      problems({
        ...valid,
        acceptanceCriteria: ['The export is fast: p95 under 300 ms for 10000 rows'],
      }),
    ).toEqual([]);
  });

  it('given a criterion of fewer than 4 words, when parsed, then it asks for a sentence', () => {
    expect(problems({ ...valid, acceptanceCriteria: ['Exports CSV-formatted-files'] })[0]).toMatch(
      /^acceptanceCriteria\.0: "Exports CSV-formatted-files" is not a sentence: write at least 4 words/,
    );
  });

  it('given a too short criterion, when parsed, then it shows an example', () => {
    expect(problems({ ...valid, acceptanceCriteria: ['works'] })[0]).toMatch(
      /at least 15 characters.*GET \/requests/,
    );
  });

  it('given the same criterion twice, when parsed, then the duplicate is named with the id it repeats', () => {
    const text = 'The export contains every audit event of the chosen month';
    expect(problems({ ...valid, acceptanceCriteria: [text, ` ${text.toUpperCase()} `] })).toEqual([
      'acceptanceCriteria.1: repeats criterion 1 (ac-1): remove the duplicate',
    ]);
  });

  it('given a snake_case field, when parsed, then the unknown field is named and the known ones listed', () => {
    expect(problems({ ...valid, acceptance_criteria: [] })).toEqual([
      ': unknown field(s) acceptance_criteria: the intake form takes title, problem, product, requester, acceptanceCriteria, links, priority',
    ]);
  });

  it('given a non-http link and an unknown priority, when parsed, then both say what is allowed', () => {
    const messages = problems({
      ...valid,
      links: [{ url: 'ftp://example.org/x' }],
      priority: 'urgent',
    });
    expect(messages).toEqual([
      'links.0.url: url must be an absolute http(s) URL, e.g. "https://github.com/org/repo/issues/1"',
      'priority: priority must be one of low, medium, high, critical (default medium)',
    ]);
  });

  it('given something other than an object, when parsed, then the message shows the expected shape', () => {
    const result = parseIntakeForm('please add CSV export');
    expect(result.success).toBe(false);
    expect(result.success ? '' : result.message).toContain(
      '{ title, problem, product, requester, acceptanceCriteria',
    );
  });
});
