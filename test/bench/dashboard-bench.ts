/**
 * `npm run bench:dashboard`: the overview with 200 agents in Debian's Chromium. Prints how long the
 * first render takes, and the main-thread long tasks (> 50 ms, the threshold for jank) seen while the
 * page keeps refreshing for 10 s. Prints figures; asserts nothing.
 */
import { chromium } from '@playwright/test';
import { startCoffer } from '../helpers/coffer.js';
import { chromiumLaunchOptions } from '../e2e/chromium.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 200);
const WATCH_MS = 10_000;

const t = await startCoffer();
try {
  const deployStart = performance.now();
  for (let i = 0; i < AGENTS; i++) {
    const id = `agent-${String(i).padStart(3, '0')}`;
    await t.api('POST', t.withOwner('/v1/agents/deploy'), { body: { agentId: id, dailyBudget: '10.00', maxPerPayment: '1.00' } });
  }
  // A few funded agents with payments, so balances, bars and activity have something to draw.
  for (let i = 0; i < 20; i++) {
    const id = `agent-${String(i).padStart(3, '0')}`;
    await t.api('POST', t.withOwner(`/v1/agents/${id}/allocate`), { body: { amount: '2.00' } });
    await t.api('POST', t.withOwner(`/v1/agents/${id}/pay`), { body: { service: 'demo-weather', amount: '0.01', currency: 'USDC' } });
  }
  console.log(`seeded ${AGENTS} agents in ${((performance.now() - deployStart) / 1000).toFixed(1)} s`);

  const browser = await chromium.launch(chromiumLaunchOptions);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  const login = await t.api('POST', t.withOwner('/v1/session/login-link'));
  const started = performance.now();
  await page.goto(login.body.url);
  await page.getByTestId(`agent-row-agent-${String(AGENTS - 1).padStart(3, '0')}`).waitFor();
  const firstRender = performance.now() - started;
  const apiTime = await page.evaluate(
    () =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.includes('/v1/dashboard'))
        .map((e) => e.duration)[0] ?? 0,
  );
  await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));
  await page.waitForTimeout(WATCH_MS);
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
  const refreshes = await page.evaluate(
    () => performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/dashboard')).length,
  );
  await browser.close();

  console.log('');
  console.log(`overview with ${AGENTS} agents, 1280x800, Debian Chromium`);
  console.log(`  login to last row rendered:        ${firstRender.toFixed(0)} ms (first /v1/dashboard answer ${apiTime.toFixed(0)} ms)`);
  console.log(`  refreshes in ${WATCH_MS / 1000} s:                  ${refreshes}`);
  console.log(
    `  long tasks (> 50 ms) meanwhile:    ${longTasks.length}${longTasks.length ? `, longest ${Math.max(...longTasks).toFixed(0)} ms` : ''}`,
  );
} finally {
  await t.stop();
}
