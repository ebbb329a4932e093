import { describe, expect, it } from 'vitest';
import {
  markerIn,
  neutraliseMarkers,
  proposalBranch,
  proposalIdOfBranch,
  proposalMarker,
  requestIdOfProposal,
  requestMarker,
} from '../../../services/github/markers.js';

describe('GitHub markers and names', () => {
  it('given a proposal id, when its branch is named, then the branch resolves back to the proposal and its request', () => {
    const branch = proposalBranch('req-2026-0042-p3');

    expect(branch).toBe('cogitave/req-2026-0042-p3');
    expect(proposalIdOfBranch(branch)).toBe('req-2026-0042-p3');
    expect(requestIdOfProposal('req-2026-0042-p3')).toBe('req-2026-0042');
  });

  it.each([
    'main',
    'cogitave/',
    'cogitave/req-2026-0042',
    'feature/req-2026-0042-p1',
    'cogitave/x-p1',
  ])('given branch %s, when resolved, then it is not a proposal branch', (branch) => {
    expect(proposalIdOfBranch(branch)).toBeUndefined();
  });

  it('given bodies with markers, when read, then only the first marker of the asked kind counts', () => {
    expect(markerIn(`${requestMarker('req-2026-0001')}\nbody`, 'request')).toBe('req-2026-0001');
    expect(markerIn(`${proposalMarker('req-2026-0001-p1')}\nRefs #1`, 'proposal')).toBe(
      'req-2026-0001-p1',
    );
    expect(markerIn(proposalMarker('req-2026-0001-p1'), 'request')).toBeUndefined();
    expect(markerIn(null, 'request')).toBeUndefined();
  });

  it('given user text with an HTML comment, when neutralised, then it can no longer forge a marker', () => {
    const forged = neutraliseMarkers(`see ${requestMarker('req-2026-9999')}`);

    expect(markerIn(forged, 'request')).toBeUndefined();
    expect(forged).toContain('&lt;!-- cogitave:request=req-2026-9999 -->');
  });
});
