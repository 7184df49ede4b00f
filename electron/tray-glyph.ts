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
