// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { guardUnsavedInput, inDesktopApp } from '../../../../../renderer/src/lib/unsaved-input.js';

/** What the window does when asked to unload: true when the page refuses (a beforeunload cancelled). */
const unloadRefused = () => {
  const event = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(event);
  return event.defaultPrevented;
};

let stop: (() => void) | null = null;
afterEach(() => {
  stop?.();
  document.body.innerHTML = '';
});

describe('input typed and not sent, in the desktop window', () => {
  it('refuses the reload from the first keystroke in a form until it is sent or gone', () => {
    stop = guardUnsavedInput(document, window);
    document.body.innerHTML = '<form id="f"><input name="amount"></form><input id="search">';
    const form = document.getElementById('f') as HTMLFormElement;
    const field = form.querySelector('input')!;
    expect(unloadRefused()).toBe(false);
    // Typing outside any form (a search box) holds nothing.
    document.getElementById('search')!.dispatchEvent(new Event('input', { bubbles: true }));
    expect(unloadRefused()).toBe(false);
    field.value = '1.50';
    field.dispatchEvent(new Event('input', { bubbles: true }));
    expect(unloadRefused()).toBe(true);
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    expect(unloadRefused()).toBe(false);
    field.dispatchEvent(new Event('input', { bubbles: true }));
    expect(unloadRefused()).toBe(true);
    // The dialog holding the form closed: nothing is held any more.
    form.remove();
    expect(unloadRefused()).toBe(false);
  });

  it('is for the desktop window only, which its preload marks', () => {
    expect(inDesktopApp(window)).toBe(false);
    expect(inDesktopApp({ cofferDesktop: { isDesktop: true } } as unknown as Window)).toBe(true);
  });
});
