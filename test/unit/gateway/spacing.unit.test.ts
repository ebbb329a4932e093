import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spaced } from '../../../mcp-gateway/server/spacing.js';

describe('spaced: at most one run per window, the last request never dropped', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('given a quiet sender, when one request comes, then it runs at once', () => {
    const send = vi.fn();
    const spacing = spaced(100, send, () => Date.now());

    spacing.request();

    expect(send).toHaveBeenCalledTimes(1);
  });

  it('given a run just now, when five requests follow within the window, then one more run happens at its end', () => {
    const send = vi.fn();
    const spacing = spaced(100, send, () => Date.now());
    spacing.request();

    for (let i = 0; i < 5; i += 1) {
      vi.advanceTimersByTime(10);
      spacing.request();
    }
    expect(send).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(49);
    expect(send).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);

    expect(send).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1000);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('given a run longer ago than the window, when a request comes, then it runs at once', () => {
    const send = vi.fn();
    const spacing = spaced(100, send, () => Date.now());
    spacing.request();
    vi.advanceTimersByTime(150);

    spacing.request();

    expect(send).toHaveBeenCalledTimes(2);
  });

  it('given a pending run, when stopped, then it never runs and later requests are ignored', () => {
    const send = vi.fn();
    const spacing = spaced(100, send, () => Date.now());
    spacing.request();
    spacing.request();

    spacing.stop();
    vi.advanceTimersByTime(1000);
    spacing.request();

    expect(send).toHaveBeenCalledTimes(1);
  });
});
