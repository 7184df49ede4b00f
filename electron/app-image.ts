import { sep } from 'node:path';

/**
 * The AppImage file this app runs from, or null. Its runtime mounts the image at a path that changes
 * at every start (APPDIR) and names the image file in APPIMAGE
 * (https://docs.appimage.org/packaging-guide/environment-variables.html): what must outlive this run
 * (an MCP config, the autostart entry) names the file. Both variables are inherited by children, so
 * a Coffer started from another AppImage (an editor's terminal) sees that one's: they count only when
 * this executable lies inside APPDIR.
 */
export function appImageOf(execPath: string, env: NodeJS.ProcessEnv): string | null {
  const { APPIMAGE, APPDIR } = env;
  if (!APPIMAGE || !APPDIR) return null;
  const mount = APPDIR.endsWith(sep) ? APPDIR : `${APPDIR}${sep}`;
  return execPath.startsWith(mount) ? APPIMAGE : null;
}
