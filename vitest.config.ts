import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Playwright specs (test/e2e, *.spec.ts) are not Vitest's.
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
