// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { useTheme } from '../../../../../renderer/src/lib/use-theme.js';

const systemPrefersDark = (dark: boolean) =>
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => ({ matches: dark && query.includes('dark') }) as MediaQueryList);

// jsdom has no matchMedia: one is put in place, for the tests to say what the system prefers.
beforeAll(() => {
  window.matchMedia ??= (() => ({ matches: false })) as unknown as typeof window.matchMedia;
});
afterEach(() => {
  window.localStorage.clear();
  vi.restoreAllMocks();
});

describe('the dashboard’s theme', () => {
  it('follows the system until one is picked, and sets it on the page', () => {
    systemPrefersDark(true);
    const { result } = renderHook(() => useTheme());
    expect(result.current[0]).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
  });

  it('keeps the one picked in this browser, over the system’s, and the switch flips it', () => {
    systemPrefersDark(true);
    window.localStorage.setItem('coffer-theme', 'light');
    const { result } = renderHook(() => useTheme());
    expect(result.current[0]).toBe('light');
    act(() => result.current[1]());
    expect(result.current[0]).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(window.localStorage.getItem('coffer-theme')).toBe('dark');
  });
});
