import { afterEach, describe, expect, it, vi } from 'vitest';
import { userShellEnv } from '../../../helpers/user-shell.js';

afterEach(() => vi.unstubAllEnvs());

describe("the user's shell, as the tests type into it", () => {
  it('carries none of the test runner’s variables: NODE_ENV=test made `npx coffer` build a development dashboard', () => {
    // Vitest sets NODE_ENV=test in its workers (where the terminal had none); a person's terminal has no such thing.
    vi.stubEnv('NODE_ENV', 'test');
    const env = userShellEnv('/home/someone');
    expect(env.NODE_ENV).toBeUndefined();
    expect(Object.keys(env).filter((name) => /^(VITEST|npm_|COFFER_)/i.test(name))).toEqual([]);
    expect(env.HOME).toBe('/home/someone');
  });
});
