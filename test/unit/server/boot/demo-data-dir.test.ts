import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { demoDataDir } from '../../../../server/boot/open-coffer.js';
import { DEMO_MARKER_FILE } from '../../../../server/wire/network-words.js';

/** What a data dir of `coffer demo-x402`'s, started as any other Coffer, is told (server/boot/open-coffer.ts). */
describe("a demo's data dir started another way", () => {
  const made: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-demo-words-'));
    made.push(dir);
    return dir;
  };
  afterEach(() => made.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("names the demo's folder where the data dir is its Coffer", () => {
    const demo = folder();
    writeFileSync(join(demo, DEMO_MARKER_FILE), '{}');
    mkdirSync(join(demo, 'coffer'));
    expect(demoDataDir(join(demo, 'coffer'))).toBe(
      `the data dir ${join(demo, 'coffer')} holds the test money of coffer demo-x402 (a local cluster, not devnet): start it again with coffer demo-x402 --data-dir ${demo}`,
    );
  });

  it('names no folder where it lies elsewhere, restored from a backup (helper 196: sent to start a demo in the folder above)', () => {
    const elsewhere = join(folder(), 'restored');
    const words = demoDataDir(elsewhere);
    expect(words).toMatch(
      /^the data dir .*restored holds the test money of coffer demo-x402 \(a local cluster, not devnet\), outside a demo's folder/,
    );
    expect(words).not.toContain('coffer demo-x402 --data-dir');
    expect(words).toContain(
      "start it with --network and the demo cluster's RPC URL, and COFFER_BASE_RPC and COFFER_BASE_USDC for its EVM chain",
    );
  });
});
