/**
 * How Debian's Chromium is launched for Playwright here: the specs and the dashboard benchmark alike
 * (never `npx playwright install`; CHROMIUM_PATH points elsewhere).
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
  ],
};
