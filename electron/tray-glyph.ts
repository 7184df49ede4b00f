import type { NativeImage } from 'electron';
import { join } from 'node:path';
import type { ElectronApi } from './electron-api.js';

/**
 * Which glyph the tray icon needs: a light one on a dark panel, a dark one on a light panel. The
 * panel is not the app: its shade is read where the platform keeps it (macOS needs no answer: its
 * template images follow the menu bar by themselves).
 * - Windows: the taskbar follows the system theme, which may differ from the apps' (Windows 10's
 *   default is a dark taskbar with light apps): `shouldUseDarkColorsForSystemIntegratedUI`
 *   (Electron's nativeTheme docs), not `shouldUseDarkColors`.
 * - Linux: GNOME Shell's top bar is dark in its light style too, so on GNOME the glyph is always the
 *   light one; elsewhere (KDE, Xfce, …) the panel follows the desktop's theme, as the app does.
 */
export type PanelShade = 'dark' | 'light';

export interface ThemeReading {
  shouldUseDarkColors: boolean;
  shouldUseDarkColorsForSystemIntegratedUI?: boolean;
}

export function panelShade(platform: NodeJS.Platform, theme: ThemeReading, env: NodeJS.ProcessEnv): PanelShade {
  if (platform === 'win32') return (theme.shouldUseDarkColorsForSystemIntegratedUI ?? theme.shouldUseDarkColors) ? 'dark' : 'light';
  if (platform === 'linux' && onGnomeShell(env)) return 'dark';
  return theme.shouldUseDarkColors ? 'dark' : 'light';
}

/** GNOME Shell, as the session names itself (XDG_CURRENT_DESKTOP is a colon-separated list, e.g. "ubuntu:GNOME"). */
const onGnomeShell = (env: NodeJS.ProcessEnv) => (env.XDG_CURRENT_DESKTOP ?? '').split(':').some((name) => name.toUpperCase() === 'GNOME');

/**
 * The tray icon's image for its state. macOS: template images (black and alpha) follow the menu bar
 * in light and dark, and the attention icon differs in its shape (a dot), since a template cannot be
 * red. Elsewhere: the glyph for the panel's shade, the attention one with a red dot.
 */
export function trayIconImage(
  nativeImage: ElectronApi['nativeImage'],
  options: { platform: NodeJS.Platform; icons: string; shade: PanelShade },
  state: 'normal' | 'attention',
): NativeImage {
  if (options.platform === 'darwin') {
    const icon = nativeImage.createFromPath(join(options.icons, state === 'normal' ? 'trayTemplate.png' : 'trayAttentionTemplate.png'));
    icon.setTemplateImage(true);
    return icon;
  }
  return nativeImage.createFromPath(join(options.icons, `tray-${state}-on-${options.shade}.png`));
}
