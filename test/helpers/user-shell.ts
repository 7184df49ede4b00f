import { existsSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';

/** The user's PATH: what this process has, less npm's node_modules/.bin folders and any coffer. */
export const userPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && !dir.split(sep).includes('node_modules') && !existsSync(join(dir, 'coffer')))
  .join(delimiter);

/**
 * The environment of the user's shell, as a command of the README or docs/ is typed there: their PATH and a HOME of
 * their own, nothing of npm's, the tests' or Coffer's own variables.
 */
export const userShellEnv = (home: string): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    // NODE_ENV is Vitest's (test): `npx coffer` with a fresh npm cache builds the checkout (its
    // prepare script), and Vite builds a development dashboard under it.
    Object.entries(process.env).filter(([name]) => !/^(npm_|COFFER_|VITEST|XDG_CONFIG_HOME$|INIT_CWD$|NODE$|NODE_ENV$)/i.test(name)),
  ),
  PATH: userPath,
  HOME: home,
});
