import { describe, expect, it } from 'vitest';
import { panelShade } from '../../../electron/tray-glyph.js';

describe('the shade of the panel the tray icon sits on', () => {
  it("Windows: the taskbar's (the system theme), not the apps': a dark taskbar with light apps is dark", () => {
    expect(panelShade('win32', { shouldUseDarkColors: false, shouldUseDarkColorsForSystemIntegratedUI: true }, {})).toBe('dark');
    expect(panelShade('win32', { shouldUseDarkColors: true, shouldUseDarkColorsForSystemIntegratedUI: false }, {})).toBe('light');
  });

  it("Linux: GNOME Shell's top bar is dark in its light style too; other desktops follow the theme", () => {
    for (const desktop of ['GNOME', 'ubuntu:GNOME', 'GNOME-Classic:GNOME', 'gnome'])
      expect(panelShade('linux', { shouldUseDarkColors: false }, { XDG_CURRENT_DESKTOP: desktop }), desktop).toBe('dark');
    for (const desktop of ['KDE', 'XFCE', 'GNOME-Flashback-ish', undefined])
      expect(panelShade('linux', { shouldUseDarkColors: false }, { XDG_CURRENT_DESKTOP: desktop }), String(desktop)).toBe('light');
    expect(panelShade('linux', { shouldUseDarkColors: true }, { XDG_CURRENT_DESKTOP: 'KDE' })).toBe('dark');
  });
});
