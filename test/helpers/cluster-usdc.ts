import { address } from '@solana/kit';
import type { TestCluster } from '../fixtures/test-cluster.js';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';

/** A wallet's USDC on a test cluster, in micro-USDC, read from its token account (0 when it has none). */
export async function usdcOn(cluster: TestCluster, wallet: string): Promise<bigint> {
  const account = cluster.ledger.account(await usdcTokenAccount(address(cluster.mint.address), address(wallet)));
  return account.exists ? new DataView(account.data.buffer, account.data.byteOffset + 64, 8).getBigUint64(0, true) : 0n;
}
