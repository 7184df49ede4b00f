import { useLayoutEffect, useRef } from 'react';
import { hrefFor, type Route } from './route.js';

/**
 * Another page opened (the navigation, a link) starts at its top: the window's scroll is the page
 * before's, so Back up opened from a long overview scrolled down showed its foot. The first page keeps
 * where the browser put it (a reload), and a page drawn again (a refresh) keeps the owner's place. A
 * layout effect, so it runs before every ordinary effect: one approval opened from elsewhere is still
 * brought into view by its page (use-focused-approval.ts), after this.
 */
export function usePageTop(route: Route): void {
  const shown = useRef(hrefFor(route));
  useLayoutEffect(() => {
    const href = hrefFor(route);
    if (href === shown.current) return;
    shown.current = href;
    window.scrollTo(0, 0);
  }, [route]);
}
