import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openCoffer } from '../../server/boot/open-coffer.js';
import { SimChainUnavailableError } from '../../server/chain/solana/sim/load.js';
import { tempDataDir } from '../helpers/coffer.js';

// As on Windows (or a macOS install whose lock had no LiteSVM build): the sim chain's module, and
// LiteSVM's native binding with it, cannot load.
vi.mock('../../server/chain/solana/sim/chain.js', () => {
  throw new Error('Cannot find module litesvm-win32-x64-msvc');
});

describe('where the embedded sim chain cannot run', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = tempDataDir();
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const open = (dir: string, network?: string) => openCoffer({ dataDir: dir, network, keyStore: 'file', log: () => undefined });

  it('the sim network fails with one clear error that says what works instead, and claims nothing', async () => {
    const dir = dataDir();
    const failure = await open(dir).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SimChainUnavailableError);
    expect((failure as Error).message).toMatch(/cannot run on .+: start Coffer on devnet .*--network devnet/);
    expect((failure as Error).cause).toBeInstanceOf(Error);
    // The data dir was not made a sim treasury: devnet opens it, and it stays devnet when reopened.
    const devnet = await open(dir, 'devnet');
    expect(devnet.chain.network).toBe('devnet');
    await devnet.close();
    const again = await open(dir);
    expect(again.chain.network).toBe('devnet');
    await again.close();
  });

  it('every other network works: nothing of LiteSVM is loaded for them', async () => {
    for (const network of ['devnet', 'mainnet', 'http://127.0.0.1:8899']) {
      const coffer = await open(dataDir(), network);
      expect(coffer.chain.isSim).toBe(false);
      await coffer.close();
    }
  });

  it('a data dir made on a custom cluster says how to reopen it when no network is given', async () => {
    const dir = dataDir();
    await (await open(dir, 'http://127.0.0.1:8899')).close();
    await expect(open(dir)).rejects.toThrow(/holds a localnet treasury: start it with --network and that cluster's RPC URL/);
  });
});
