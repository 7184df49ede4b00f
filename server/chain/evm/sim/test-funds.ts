/**
 * The embedded EVM chain's test money, as Coffer hands it out: a faucet wallet holding test USDC
 * (minted once, at its first start), whose key the key store keeps and the backup carries, so test
 * mints are EIP-3009 transfers like every other move (each lands once at most); and test ETH, from
 * the chain's genesis account, for the wallets that send transactions (the treasury).
 */
import { encodeFunctionData, getAddress, parseEther, type Address } from 'viem';
import { USDC_ABI } from '../usdc-abi.js';
import type { SqliteDatabase } from '../../../store/sqlite-driver.js';
import type { EvmTestFunds } from '../chain.js';
import type { EvmSigners } from '../signers.js';
import type { EmbeddedEvm } from './chain.js';

const FAUCET_WALLET_META = 'evm.faucet_wallet';
/**
 * Test USDC the faucet wallet is kept at, in micro-USDC: a trillion, so some five hundred of the
 * largest mints (a billion each) can be under way at once before one finds it short (the top-up
 * starts below half, and counts no mint signed and not yet landed). Minted again whenever
 * it holds less than half, as gas is: what the owner draws from it is no limit the owner meets.
 */
const FAUCET_RESERVE = 1_000_000_000_000n * 1_000_000n;
/** A sender is topped up to this much test ETH when it holds less than a tenth of it (gas for ~10 million moves). */
const GAS_TOP_UP = parseEther('1000');

export async function openEvmTestFunds(evm: EmbeddedEvm, db: SqliteDatabase, vault: EvmSigners): Promise<EvmTestFunds> {
  const getMeta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const topUpGas = async (address: Address) => {
    const balance = BigInt((await evm.request('eth_getBalance', [address, 'latest'])) as string);
    if (balance < GAS_TOP_UP / 10n) await evm.sendTestEth(address, GAS_TOP_UP - balance);
  };
  let wallet = getMeta.get(FAUCET_WALLET_META) as string | undefined;
  if (wallet === undefined) {
    // First start: a wallet of the key store's own (test money, never derived from a phrase), then its
    // reserve; a crash in between makes another at the next start, and the first holds test money only.
    wallet = await vault.createWallet({ kind: 'random' });
    const account = getAddress(await vault.evmWalletOf(wallet, wallet));
    await evm.mintTestUsdc(account, FAUCET_RESERVE);
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(FAUCET_WALLET_META, wallet);
  }
  const account = getAddress(await vault.evmWalletOf(wallet, wallet));
  await topUpGas(account);
  const topUpFaucet = async () => {
    const held = BigInt(
      (await evm.request('eth_call', [
        { to: evm.usdc, data: encodeFunctionData({ abi: USDC_ABI, functionName: 'balanceOf', args: [account] }) },
        'latest',
      ])) as string,
    );
    if (held < FAUCET_RESERVE / 2n) await evm.mintTestUsdc(account, FAUCET_RESERVE - held);
  };
  await topUpFaucet();
  return { topUpGas, topUpFaucet, faucet: { wallet, account } };
}
