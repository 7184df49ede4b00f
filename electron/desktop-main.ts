import * as electron from 'electron';
import { homedir } from 'node:os';
import { openCoffer } from '../server/boot/open-coffer.js';
import { startHttpServer } from '../server/boot/http-server.js';
import { startChainWatch } from '../server/boot/chain-watch.js';
import { packagePath, packageVersion } from '../server/package/package-files.js';
import { resolveServeConfig } from '../server/boot/serve-config.js';
import { createDesktop } from './desktop.js';
import { systemTimers } from './tray-controller.js';

/** The desktop app (electron/desktop.ts) given the real Electron and machine (main.ts decides it is not an MCP launch). */
void createDesktop(electron, {
  platform: process.platform,
  argv: process.argv,
  env: process.env,
  execPath: process.execPath,
  home: homedir(),
  version: packageVersion(),
  icons: packagePath('build', 'icons'),
  // Packaged, the executable is the app; otherwise Electron is told which app to run.
  appEntry: electron.app.isPackaged ? null : packagePath('dist', 'app', 'electron', 'main.js'),
  // The same data dir, port and network as `coffer serve` (the launcher passes flags as COFFER_*).
  resolveConfig: () => resolveServeConfig({}),
  openCoffer,
  startHttpServer,
  startChainWatch,
  timers: systemTimers,
  stderr: (line) => process.stderr.write(`${line}\n`),
  stdout: (line) => process.stdout.write(`${line}\n`),
}).start();
