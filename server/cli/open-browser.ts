import { spawn } from 'node:child_process';

/**
 * Opens a URL in the user's browser (xdg-open, open, start). Resolves false when no browser can be
 * started here (a headless box, no display): the caller then prints the URL.
 */
export function openBrowser(url: string): Promise<boolean> {
  if (process.env.COFFER_NO_BROWSER) return Promise.resolve(false);
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
