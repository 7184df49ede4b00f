import { describe, expect, it } from 'vitest';
import { walletsWithoutKeyIn } from '../../../../server/backup/lacked-keys.js';
import type { LedgerWallet } from '../../../../server/store/ledger-snapshot.js';

/**
 * Which wallets a backup file lacks the key of (server/backup/lacked-keys.ts): decided from the file
 * itself, its writer's list taken only for what the ledger does not name and only where true.
 */
const TREASURY = '7rDCz3QJ2Ymh7qS3W7WqJb2bqv2CqNwGz8yN8y7J9kQe';
const AGENT = 'EFLN6zxa2hXfJ4Y8p1Q2w3e4r5t6y7u8i9o1p2a3s4d5';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BASE = '0xB4356dC8A1c2b3D4e5F60718293a4B5c6D7e8F90';
const ledger: LedgerWallet[] = [
  { address: TREASURY, rail: 'sol', agentId: null },
  { address: AGENT, rail: 'sol', agentId: 'a2' },
  { address: BASE, rail: 'base', agentId: 'a1' },
];
const allKeys = { [`wallet:${TREASURY}`]: 'k', [`wallet:${AGENT}`]: 'k', [`evm-wallet:${BASE}`]: '0x', [`wallet:${MINT}`]: 'k' };
const without = (...names: string[]) => Object.fromEntries(Object.entries(allKeys).filter(([name]) => !names.includes(name)));

describe('the wallets a backup file lacks the key of', () => {
  it('none where the file holds every key, whatever its writer said (helper 200: a file said a key it held was missing)', () => {
    expect(walletsWithoutKeyIn({ ledger, writerSaid: [BASE, AGENT, MINT], secrets: allKeys })).toEqual([]);
  });

  it('every wallet and Base account of the ledger whose key the file lacks, where its writer said none (helper 200)', () => {
    const secrets = without(`wallet:${AGENT}`, `evm-wallet:${BASE}`);
    expect(walletsWithoutKeyIn({ ledger, writerSaid: [], secrets })).toEqual([
      { address: AGENT, rail: 'sol', agentId: 'a2', named: 'ledger' },
      { address: BASE, rail: 'base', agentId: 'a1', named: 'ledger' },
    ]);
    // A file older than the writer's list: the same.
    expect(walletsWithoutKeyIn({ ledger, writerSaid: null, secrets })).toHaveLength(2);
  });

  it("a chain's own wallet, which no ledger row names, from its writer's list, where the file lacks its key", () => {
    expect(walletsWithoutKeyIn({ ledger, writerSaid: [MINT], secrets: without(`wallet:${MINT}`) })).toEqual([
      { address: MINT, rail: 'sol', agentId: null, named: 'writer' },
    ]);
  });

  it("never what is no address in its writer's list (helper 200: a terminal's escapes were printed as a wallet)", () => {
    const said = ['<b>x</b>\u001b[31mRED', 'not an address', '0x123', ''];
    expect(walletsWithoutKeyIn({ ledger, writerSaid: said, secrets: allKeys })).toEqual([]);
  });
});
