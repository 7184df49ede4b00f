import { join } from 'node:path';

/**
 * Where the specs' screenshots go: beside the test results, or, with UPDATE_README_SCREENSHOTS=1, over
 * the committed ones the README and docs/DESKTOP.md show (so a test run leaves the working tree as it
 * found it).
 */
export const SCREENSHOTS = process.env.UPDATE_README_SCREENSHOTS
  ? join(import.meta.dirname, 'screenshots')
  : join(import.meta.dirname, '../../test-results/screenshots');
