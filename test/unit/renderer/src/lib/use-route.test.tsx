// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { useRoute } from '../../../../../renderer/src/lib/route.js';

afterEach(() => history.replaceState(null, '', '#/'));

describe('the route the dashboard shows', () => {
  it('follows the hash as it changes', async () => {
    history.replaceState(null, '', '#/');
    const { result } = renderHook(() => useRoute());
    expect(result.current).toEqual({ page: 'overview' });
    await act(async () => {
      window.location.hash = '#/registry';
      await new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
    });
    expect(result.current).toEqual({ page: 'registry' });
  });

  it('reads a hash that changed before it listened (a page sent elsewhere while it started)', () => {
    history.replaceState(null, '', '#/nowhere');
    const { result } = renderHook(() => {
      const route = useRoute();
      // Between the first render and the listener: the hash moves on, and its event is gone.
      if (window.location.hash === '#/nowhere') history.replaceState(null, '', '#/activity');
      return route;
    });
    expect(result.current).toEqual({ page: 'activity' });
  });
});
