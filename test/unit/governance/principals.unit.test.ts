import { describe, expect, it } from 'vitest';
import { judgeApproval } from '../../../services/principals/four-eyes.js';
import {
  createPrincipalDirectory,
  principalTableSchema,
} from '../../../services/principals/principals.js';

const directory = createPrincipalDirectory(
  principalTableSchema.parse({
    Octocat: { tokens: ['octo-agent'], github: ['octocat', 'octo-alt'], maintainer: true },
    grace: { github: ['grace-hopper'], maintainer: true },
  }),
);

describe('principal directory', () => {
  it('given linked identities, when resolved, then the token, every login and the name are one principal, logins case-insensitively', () => {
    const ids = [
      'token:octo-agent',
      'github:octocat',
      'github:OCTO-ALT',
      'maintainer:octocat',
      'maintainer:Octocat',
    ].map((actor) => directory.principalOf(actor));
    expect(new Set(ids.map((p) => p.id))).toEqual(new Set(['octocat']));
    expect(ids.every((p) => p.configured && p.maintainer)).toBe(true);
  });

  it('given identities nobody lists, when resolved, then each is its own principal by name, and with maintainers configured it is not one', () => {
    expect(directory.principalOf('token:ada')).toEqual({
      id: 'ada',
      configured: false,
      maintainer: false,
    });
    expect(directory.principalOf('github:ada').id).toBe('ada');
    expect(directory.principalOf('agent:ada').id).toBe('ada');
    // A token name equal to a login of someone else is not that person: tokens are looked up as tokens.
    expect(directory.principalOf('token:grace-hopper').id).toBe('grace-hopper');
    expect(createPrincipalDirectory().principalOf('github:ada').maintainer).toBe(true);
  });

  it('given the rules, when judged, then own proposals and non-maintainers do not count, other maintainers do', () => {
    const judge = (proposedBy: string, approvedBy: string) =>
      judgeApproval(directory, { proposedBy, approvedBy, proposalId: 'req-2026-0001-p1' });
    expect(judge('token:octo-agent', 'github:octo-alt')).toMatchObject({
      counts: false,
      code: 'own_proposal',
    });
    expect(judge('token:octo-agent', 'github:mallory')).toMatchObject({
      counts: false,
      code: 'not_maintainer',
    });
    expect(judge('token:octo-agent', 'github:grace-hopper')).toMatchObject({ counts: true });
  });
});
