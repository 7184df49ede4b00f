// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderHook } from '@testing-library/react';
import { usePageTop } from '../../../../../renderer/src/lib/use-page-top.js';
import type { Route } from '../../../../../renderer/src/lib/route.js';

let scrolled: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  scrolled = vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('a page opened from the navigation', () => {
  it('opens at its top, not at the scroll the page before was left at', () => {
    const { rerender } = renderHook(({ route }: { route: Route }) => usePageTop(route), { initialProps: { route: { page: 'overview' } } });
    // The first page is where the browser put it (a reload keeps its place).
    expect(scrolled).not.toHaveBeenCalled();
    rerender({ route: { page: 'backup' } });
    expect(scrolled).toHaveBeenCalledWith(0, 0);
    // The same page drawn again (a refresh) keeps the owner's place.
    rerender({ route: { page: 'backup' } });
    expect(scrolled).toHaveBeenCalledTimes(1);
    rerender({ route: { page: 'agent', agentId: 'alpha' } });
    expect(scrolled).toHaveBeenCalledTimes(2);
  });

  it('opens one approval linked from elsewhere at the top too, before its page brings the approval into view', () => {
    const { rerender } = renderHook(({ route }: { route: Route }) => usePageTop(route), { initialProps: { route: { page: 'overview' } } });
    rerender({ route: { page: 'approvals', approvalId: 'apr_1' } });
    expect(scrolled).toHaveBeenCalledWith(0, 0);
  });
});
