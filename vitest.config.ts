import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Two projects, run apart by `npm run test:unit` and `npm run test:integration` (and together by
// `npm test`): unit tests need nothing but Node; integration tests start real servers, packs and
// keychains (inside the D-Bus session test/run.js makes). Playwright specs (test/e2e, *.spec.ts) are
// not Vitest's.
export default defineConfig({
  plugins: [react()],
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
    ],
  },
});
