import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APP_ICON_SIZES } from '../../../../build/scripts/make-icons.js';
import {
  recentDownloadFailure,
  RETRY_DOWNLOAD_AFTER_MS,
  runElectron,
  whyElectronStopped,
  whyNoDesktop,
} from '../../../../server/boot/desktop-launcher.js';
import { packageRoot } from '../../../../server/package/package-files.js';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../../../', import.meta.url);
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
    // The deb target needs a homepage when the checkout has no git remote to take one from.
    expect(pkg.homepage).toMatch(/^https:\/\//);
  });

  it('ships compiled JavaScript (no TypeScript, no compiler, no loader hook), the built dashboard, the catalog and the icons', () => {
    for (const entry of [
      'dist/app/**/*',
      'renderer/dist/**/*',
      'server/data/**/*',
      'build/icons/**/*',
      'electron/preload.cjs',
      'package.json',
    ]) {
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
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['node_modules/better-sqlite3-napi/**', 'node_modules/@napi-rs/keyring-*/**', '**/*.node']),
    );
    expect(config.asarUnpack.some((entry: string) => entry.includes('esbuild'))).toBe(false);
  });

  it('ships and builds no native module Electron never loads: Node-API builds only, nothing rebuilt', () => {
    // Electron 35 and later run Node 22.14 or newer (Node-API 10), where server/store/sqlite-driver.ts
    // loads better-sqlite3 13 (better-sqlite3-napi, prebuilt on Node-API): version 12, kept for Node 20,
    // is left out of the app, and no module is rebuilt for Electron's ABI (npmRebuild).
    expect(Number(/^\^?(\d+)\./.exec(pkg.devDependencies.electron)?.[1])).toBeGreaterThanOrEqual(35);
    expect(config.npmRebuild).toBe(false);
    expect(config.files).toContain('!node_modules/better-sqlite3${/*}');
    expect(config.asarUnpack).not.toContain('node_modules/better-sqlite3/**');
    const launcher = readFileSync(new URL('server/boot/desktop-launcher.ts', root), 'utf8');
    expect(launcher).not.toMatch(/node-gyp|prebuild-install|electron-natives/);
  });

  it("closes Electron's fuses: not runnable as Node, no NODE_OPTIONS, no inspector, only its own asar", () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
    });
    // The smoke runner reads them back from the packaged executable before it runs it.
    expect(readFileSync(new URL('build/scripts/smoke.mjs', root), 'utf8')).toMatch(/fusesNotAsRequired\(binary\)/);
    // Nothing of the desktop app asks for Node mode any more.
    for (const file of ['electron/mcp-launch.ts', 'electron/desktop-engine.ts', 'electron/desktop-main.ts'])
      expect(readFileSync(new URL(file, root), 'utf8'), file).not.toMatch(/ELECTRON_RUN_AS_NODE: '1'/);
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
    for (const name of [
      'tray-normal-on-light',
      'tray-normal-on-dark',
      'tray-attention-on-light',
      'tray-attention-on-dark',
      'trayTemplate',
      'trayAttentionTemplate',
    ]) {
      expect(pngSize(new URL(`build/icons/${name}.png`, root)), name).toEqual([16, 16]);
      expect(pngSize(new URL(`build/icons/${name}@2x.png`, root)), name).toEqual([32, 32]);
    }
  });

  it("keeps Electron's download out of npm install (fetched at npm start instead), which needs npm 11 (allowScripts)", () => {
    expect(pkg.allowScripts.electron).toBe(false);
    expect(pkg.devDependencies.electron).toMatch(/^\^?41\./);
    expect(pkg.engines.npm).toBe('>=11');
    expect(pkg.productName).toBe('Coffer');
  });

  it('npm run dist goes through a wrapper that says plainly when a download failed', () => {
    expect(pkg.scripts.dist).toBe('node build/scripts/dist.mjs');
    const wrapper = readFileSync(new URL('build/scripts/dist.mjs', root), 'utf8');
    expect(wrapper).toMatch(/electron-builder[\s\S]*explainFetchFailure/);
    // Nothing in node_modules is rebuilt for Electron any more, so nothing needs restoring after it.
    expect(wrapper).not.toMatch(/'rebuild'/);
  });
});

describe('the desktop CI on hosted runners', () => {
  const workflow = readFileSync(new URL('.github/workflows/desktop.yml', root), 'utf8');

  it('packages the app unpacked and runs its smoke mode on Linux (virtual display), macOS and Windows', () => {
    expect(workflow).toMatch(/os: \[ubuntu-24\.04, macos-14, windows-2022\]/);
    expect(workflow).toMatch(/npm run dist -- --dir --publish never/);
    expect(workflow).toMatch(/xvfb-run -a node build\/scripts\/smoke\.mjs/);
    expect(workflow).toMatch(/kernel\.apparmor_restrict_unprivileged_userns=0/);
    expect(workflow).toMatch(/node node_modules\/electron\/install\.js/);
  });

  it("the smoke runner looks for each platform's unpacked app where electron-builder puts it", () => {
    const smoke = readFileSync(new URL('build/scripts/smoke.mjs', root), 'utf8');
    for (const path of [
      "'linux-unpacked', 'coffer'",
      "'mac-arm64', 'Coffer.app', 'Contents', 'MacOS', 'Coffer'",
      "'win-unpacked', 'Coffer.exe'",
    ])
      expect(smoke).toContain(path);
    expect(config.directories.output).toBe('dist/desktop');
    expect(existsSync(new URL('docs/RELEASE.md', root))).toBe(true);
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

  it('remembers a failed download of Electron for a day instead of trying at every start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-launcher-'));
    const file = join(dir, 'download-failed.json');
    try {
      const now = 1_750_000_000_000;
      expect(recentDownloadFailure(file, now)).toBeNull();
      writeFileSync(file, JSON.stringify({ at: now - 3 * 3_600_000, reason: 'getaddrinfo ENOTFOUND github.com' }));
      expect(recentDownloadFailure(file, now)).toBe(
        `Electron's download failed 3 h ago (getaddrinfo ENOTFOUND github.com); it is tried again a day later, or now if you delete ${file}`,
      );
      expect(recentDownloadFailure(file, now + RETRY_DOWNLOAD_AFTER_MS)).toBeNull();
      writeFileSync(file, 'not json');
      expect(recentDownloadFailure(file, now)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells an Electron that stopped before Coffer ran (the sandbox abort on Ubuntu 24.04) from one that quit on purpose', () => {
    expect(whyElectronStopped(0, null, 'linux')).toBeNull(); // another Coffer runs: it opened its window
    expect(whyElectronStopped(1, null, 'linux')).toBeNull(); // the app said why, in a dialog
    expect(whyElectronStopped(null, 'SIGTRAP', 'linux')).toMatch(
      /signal SIGTRAP\). On Ubuntu 24\.04 and later, AppArmor blocks its sandbox: allow it with `sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0`/,
    );
    expect(whyElectronStopped(133, null, 'darwin')).toMatch(/exit code 133/);
  });

  it("runs Electron on Coffer's folder (so it is named Coffer), and falls back headless when it stops before the app ran", async () => {
    const fakeElectron = (lines: string[], code: number | null, signal: NodeJS.Signals | null) => {
      const spawned: { binary: string; args: string[] }[] = [];
      const spawnElectron = (binary: string, args: string[]) => {
        spawned.push({ binary, args });
        const child = Object.assign(new EventEmitter(), { stderr: new PassThrough() }) as unknown as ChildProcess;
        setTimeout(() => {
          for (const line of lines) child.stderr!.emit('data', Buffer.from(`${line}\n`));
          child.emit('exit', code, signal);
        }, 5);
        return child;
      };
      return { spawned, spawnElectron };
    };
    const crashed = fakeElectron(
      ['[1234:FATAL:setuid_sandbox_host.cc] The SUID sandbox helper binary was found, but is not configured correctly'],
      null,
      'SIGTRAP',
    );
    const aborted = await runElectron('/opt/electron', {}, crashed.spawnElectron);
    expect(aborted).toEqual({ headless: expect.stringMatching(/^Electron stopped before Coffer started \(signal SIGTRAP\)/) });
    expect(crashed.spawned).toEqual([{ binary: '/opt/electron', args: [packageRoot()] }]);
    const ran = fakeElectron(['Coffer 0.1.0 running in the tray; dashboard at http://127.0.0.1:7402'], null, 'SIGTERM');
    expect(await runElectron('/opt/electron', {}, ran.spawnElectron)).toEqual({ exitCode: 1 });
    const quit = fakeElectron([], 0, null);
    expect(await runElectron('/opt/electron', {}, quit.spawnElectron)).toEqual({ exitCode: 0 });
  });
});
