import { serve } from './serve.js';

/**
 * `npm start`: the desktop tray app. This build has no Electron shell yet, so it runs the same engine
 * headless and says so in one line.
 */
export async function start(flags: { 'data-dir'?: string; port?: string; network?: string }, version: string): Promise<number> {
  const reason = 'the Electron tray app is not part of this build yet';
  return serve(flags, version, `Starting headless: ${reason}. Open the dashboard in a browser.`);
}
