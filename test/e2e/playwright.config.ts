import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './chromium.js';

// Debian's Chromium, never a downloaded browser. The flags keep it off the network this machine lacks.
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  workers: 1,
  timeout: 60_000,
  reporter: [['list']],
  outputDir: '../../test-results',
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    launchOptions: chromiumLaunchOptions,
  },
});
