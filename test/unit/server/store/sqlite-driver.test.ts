import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SQLITE_MODULE, openConnection } from '../../../../server/store/sqlite-driver.js';

/**
 * Connections and statements that the garbage collector frees, in a process of their own: with
 * better-sqlite3 12 under Node 24.19 and newer this aborts the process (nodejs/node#65446), which is
 * why the driver takes version 13 wherever the runtime has Node-API 10.
 */
const CHURN = `
const Database = require(process.argv[1]);
for (let round = 0; round < 20; round++) {
  const db = new Database(':memory:');
  for (let i = 0; i < 5000; i++) db.prepare('SELECT ' + i).get();
  db.close();
}
setTimeout(() => console.log('survived'), 50);
`;

describe('the SQLite driver', () => {
  it('opens working connections on this runtime', () => {
    const db = openConnection(':memory:');
    expect(db.prepare('SELECT sqlite_version() AS version').get()).toEqual({ version: expect.stringMatching(/^3\.\d+\.\d+$/) });
    db.close();
  });

  it(`survives the garbage collector freeing its statements and connections on Node ${process.versions.node}`, () => {
    const churn = spawnSync(process.execPath, ['-e', CHURN, SQLITE_MODULE], { encoding: 'utf8', timeout: 60_000 });
    expect(churn.stderr).not.toMatch(/Assertion failed/);
    expect({ status: churn.status, signal: churn.signal, stdout: churn.stdout.trim() }).toEqual({
      status: 0,
      signal: null,
      stdout: 'survived',
    });
  });
});
