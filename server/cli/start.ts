import { launchDesktop } from '../boot/desktop-launcher.js';
import { serve } from './serve.js';

/**
 * `npm start`: the desktop tray app; where Electron cannot run (no binary, no display), the same
 * engine headless, saying why in one line.
 */
export async function start(flags: { 'data-dir'?: string; port?: string; network?: string }, version: string): Promise<number> {
  const desktop = await launchDesktop(flags);
  if ('exitCode' in desktop) return desktop.exitCode;
  return serve(flags, version, `Starting headless: ${desktop.headless}. Open the dashboard with the login URL above.`);
}
