import type { MenuItemConstructorOptions } from 'electron';
import type { TrayAction, TrayItem } from './tray-model.js';

/** The tray model's items as Electron's menu template; each action's click goes to `onAction`. */
export function menuTemplate(items: TrayItem[], onAction: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    if (item.type === 'separator') return { type: 'separator' };
    // "&" would be read as a mnemonic (Windows, Linux, and macOS's FixUpWindowsStyleLabel) and
    // vanish: an agent named "R&D" stays "R&D".
    const label = item.label.replaceAll('&', '&&');
    if (item.type === 'label') return { label, enabled: false };
    if (item.type === 'submenu') return { label, submenu: menuTemplate(item.items, onAction) };
    return {
      label,
      enabled: item.enabled ?? true,
      ...(item.checked === undefined ? {} : { type: 'checkbox' as const, checked: item.checked }),
      click: () => onAction(item.action),
    };
  });
}
