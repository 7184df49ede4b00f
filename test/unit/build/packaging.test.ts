import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APP_ICON_SIZES } from '../../../build/scripts/make-icons.js';
import { buildCommands, electronBindingPath } from '../../../build/scripts/electron-natives.js';
import { whyNoDesktop } from '../../../electron/launcher.js';

const root = new URL('../../../', import.meta.url);
const config = JSON.parse(readFileSync(new URL('build/electron-builder.json', root), 'utf8'));
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

const pngSize = (file: URL) => {
  const data = readFileSync(file);
  expect(data.subarray(1, 4).toString('ascii')).toBe('PNG');
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
};

describe('the packaging config', () => {
  it('builds AppImage and deb, dmg, and nsis under one app id', () => {
    expect(config.appId).toBe('dev.coffer.desktop');
    expect(config.productName).toBe('Coffer');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('ships compiled JavaScript (no TypeScript, no compiler, no loader hook), the built dashboard, the catalog and the icons', () => {
    for (const entry of ['dist/app/**/*', 'renderer/dist/**/*', 'server/data/**/*', 'build/icons/**/*', 'electron/preload.cjs', 'package.json']) {
      expect(config.files).toContain(entry);
    }
    expect(config.files.some((entry: string) => /^(server|electron)\/\*\*/.test(entry))).toBe(false);
    for (const compiler of ['tsx', 'esbuild', '@esbuild']) expect(config.files).toContain(`!node_modules/${compiler}\${/*}`);
    expect(config.extraMetadata.main).toBe('dist/app/electron/main.js');
    expect(pkg.main).toBe('dist/app/electron/main.js');
    expect(existsSync(new URL('electron/preload.cjs', root))).toBe(true);
  });

  it("keeps electron-builder's own deb dependencies (an override drops libgtk-3-0, libnotify4, libnss3…), and no Dock icon on macOS", () => {
    expect(config.deb?.depends).toBeUndefined();
    expect(config.mac.extendInfo).toEqual({ LSUIElement: true });
  });

  it('unpacks the native modules from the asar archive, and no compiler', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/keytar/**', '**/*.node']));
    expect(config.asarUnpack.some((entry: string) => entry.includes('esbuild'))).toBe(false);
  });

  it('has the icons at every size, and the .ico, .icns and tray icons they point at', () => {
    for (const size of APP_ICON_SIZES) expect(pngSize(new URL(`build/icons/${size}x${size}.png`, root))).toEqual([size, size]);
    const ico = readFileSync(new URL(config.win.icon, root));
    expect(ico.readUInt16LE(2)).toBe(1);
    expect(ico.readUInt16LE(4)).toBe(7);
    const icns = readFileSync(new URL(config.mac.icon, root));
    expect(icns.subarray(0, 4).toString('ascii')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    // Tray: each state for a light and a dark panel, and macOS template images (black and alpha).
    for (const name of ['tray-normal-on-light', 'tray-normal-on-dark', 'tray-attention-on-light', 'tray-attention-on-dark', 'trayTemplate', 'trayAttentionTemplate']) {
      expect(pngSize(new URL(`build/icons/${name}.png`, root)), name).toEqual([16, 16]);
      expect(pngSize(new URL(`build/icons/${name}@2x.png`, root)), name).toEqual([32, 32]);
    }
  });

  it("keeps Electron's download out of npm install (fetched at npm start instead)", () => {
    expect(pkg.allowScripts.electron).toBe(false);
    expect(pkg.devDependencies.electron).toMatch(/^\^?41\./);
  });
});

describe('the desktop launcher', () => {
  it('says why the tray app cannot run, in one line', () => {
    expect(whyNoDesktop({}, 'linux')).toBe('there is no display to show a tray on (DISPLAY is not set)');
    expect(whyNoDesktop({ DISPLAY: ':0' }, 'linux')).toBeNull();
    expect(whyNoDesktop({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBeNull();
    expect(whyNoDesktop({}, 'darwin')).toBeNull();
    expect(whyNoDesktop({ COFFER_HEADLESS: '1', DISPLAY: ':0' }, 'linux')).toBe('COFFER_HEADLESS is set');
  });

  it("builds better-sqlite3 for Electron's ABI beside the Node build, never over it", () => {
    const path = electronBindingPath('41.10.0', 'linux', 'x64');
    expect(path).toMatch(/build\/\.electron-native\/41\.10\.0-linux-x64\/better_sqlite3\.node$/);
    expect(path).not.toMatch(/node_modules/);
    const [prebuilt, compile] = buildCommands('41.10.0', 'x64');
    expect(prebuilt!.args).toEqual(expect.arrayContaining(['--runtime', 'electron', '--target', '41.10.0']));
    expect(compile!.args).toEqual(expect.arrayContaining(['node-gyp', 'rebuild', '--runtime=electron', '--target=41.10.0']));
  });
});
