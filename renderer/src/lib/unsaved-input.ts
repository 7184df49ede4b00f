/**
 * In the desktop app's window, a page holding input the owner typed and has not sent refuses to be
 * unloaded: the main process signs the window in afresh by loading it again at each open (the tray's
 * "Open dashboard", a notification), and Electron, given a `beforeunload` that cancels, cancels that
 * load without a dialog (its `will-prevent-unload` docs); the window is then brought up as it is
 * (electron/window.ts). Input counts from the first keystroke in a form until the form is sent or
 * gone from the page. Only in the desktop app: a browser tab keeps its own ways.
 */
export function guardUnsavedInput(doc: Document, win: Window): () => void {
  const typedIn = new Set<HTMLFormElement>();
  const onInput = (event: Event) => {
    const form = (event.target as Element | null)?.closest?.('form');
    if (form) typedIn.add(form);
  };
  const onSubmit = (event: Event) => void typedIn.delete(event.target as HTMLFormElement);
  const onBeforeUnload = (event: BeforeUnloadEvent) => {
    for (const form of typedIn) if (!form.isConnected) typedIn.delete(form);
    if (typedIn.size === 0) return;
    event.preventDefault();
    // Older engines read the refusal from returnValue.
    event.returnValue = '';
  };
  doc.addEventListener('input', onInput, true);
  doc.addEventListener('submit', onSubmit, true);
  win.addEventListener('beforeunload', onBeforeUnload);
  return () => {
    doc.removeEventListener('input', onInput, true);
    doc.removeEventListener('submit', onSubmit, true);
    win.removeEventListener('beforeunload', onBeforeUnload);
  };
}

/** Whether this page runs in the desktop app's window (its preload says so). */
export const inDesktopApp = (win: Window): boolean =>
  (win as Window & { cofferDesktop?: { isDesktop?: boolean } }).cofferDesktop?.isDesktop === true;
