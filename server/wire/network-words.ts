/**
 * The words for a network where a person reads it (the dashboard, the tray, the CLI): test money is
 * said to be test money. Pure and browser-safe (the dashboard imports it).
 */
import { groupThousands } from './money.js';
import type { Rail } from './rails.js';

/**
 * The local cluster `coffer demo-x402` runs: test SOL and test USDC on this machine only. x402 names no
 * local network, so its USDC sits at devnet's mint address and x402 speaks of it as devnet; Coffer
 * names it by what it is, so nothing on it is ever taken for devnet funds.
 */
export const DEMO_LOCALNET = 'demo-localnet';

/** The file that makes a folder `coffer demo-x402`'s; its Coffer's data dir is the folder's `coffer`. */
export const DEMO_MARKER_FILE = 'demo-x402.json';

/**
 * The chain id of `coffer demo-x402`'s local EVM chain: 0xc0fff, never a real chain's nor a Coffer's
 * own embedded chain's (0xc0ffe). With one id, a Coffer on this machine paying the demo's seller
 * would sign an authorization valid on both chains, which the demo's facilitator could not settle
 * (the agent's money is on the other chain): the payment would stay promised until its authorization
 * ran out. With two, that Coffer refuses the offer before it signs.
 */
export const DEMO_EVM_CHAIN_ID = 790_527;

/**
 * The name the demo's Coffer gives that chain, as any EVM chain it reaches by its id: its Base rail
 * runs there, on test USDC, and nothing on it is ever taken for Base.
 */
export const DEMO_EVM_NETWORK = `evm-${DEMO_EVM_CHAIN_ID}`;

/** The networks of `coffer demo-x402`: test money on this machine only. */
const DEMO_NETWORKS: readonly string[] = [DEMO_LOCALNET, DEMO_EVM_NETWORK];

/**
 * Chains whose USDC is worth nothing: the embedded ones (`sim`), the demo's, a local cluster of its
 * own genesis (`localnet`), devnet and Base Sepolia (faucet money). Any other, a chain Coffer knows
 * only by its id included, is not said to be test money: it may be real.
 */
const TEST_MONEY_NETWORKS: readonly string[] = ['sim', 'localnet', 'devnet', 'base-sepolia', ...DEMO_NETWORKS];

/** Whether money on this network (Solana's or the Base rail's, as Coffer names them) is test money. */
export const isTestMoney = (network: string): boolean => TEST_MONEY_NETWORKS.includes(network);

/**
 * USDC as a line that says what was paid names it: `test USDC` on the demo's networks (as their chip
 * says "test money"), so a demo's payment, on a chain named by its id alone, is never read as real money.
 */
export const usdcWords = (network: string | null): 'test USDC' | 'USDC' =>
  network !== null && DEMO_NETWORKS.includes(network) ? 'test USDC' : 'USDC';

/** A short label for a chip beside a balance: the network's name, with "test money" where it is. */
export function networkChip(network: string): string {
  return DEMO_NETWORKS.includes(network) ? `${network} (test money)` : network;
}

/**
 * ETH as a person reads it, on the dashboard and in the CLI alike: at most 4 decimals, cut (never more
 * than the account holds), grouped ("999.9991", not a rounded "999.9992" on one screen and the cut
 * figure on the other).
 */
export function shortEther(balance: string): string {
  const [whole = '0', fraction = ''] = balance.split('.');
  const kept = fraction.slice(0, 4).replace(/0+$/, '');
  return groupThousands(kept === '' ? whole : `${whole}.${kept}`);
}

/** What the treasury's gas on Base is, by its network: test ETH on this machine's test chains (sim, the demo's). */
export function gasWords(network: string): 'test ETH' | 'ETH' {
  return network === 'sim' || network === DEMO_LOCALNET ? 'test ETH' : 'ETH';
}

/** The network in a sentence ("Deposits on ..."). */
export function networkWords(network: string): string {
  if (network === 'sim') return 'the embedded sim chain (test USDC)';
  if (network === DEMO_LOCALNET) return 'the local test cluster of coffer demo-x402 (test USDC, not devnet)';
  if (network === DEMO_EVM_NETWORK) return 'the local EVM chain of coffer demo-x402 (test USDC, not Base)';
  return network;
}

/**
 * The networks a Coffer pays on, as a status line names them after its address: its own, and the
 * Base rail's where that is another ("on devnet; Base on base-sepolia"); test money said as such.
 */
export function paysOnWords(network: string, baseNetwork: string | null): string {
  const base = baseNetwork !== null && baseNetwork !== network ? `; Base on ${networkWords(baseNetwork)}` : '';
  return `on ${networkWords(network)}${base}`;
}

/**
 * Where the Base rail runs on a chain of test money that is not Base, what it is, beside the balances
 * and addresses there ("Deposit address (USDC on Base)" alone would invite real Base USDC, which
 * would land on Base, where this Coffer does not look); null on Base and Base Sepolia.
 */
export function testChainNote(baseNetwork: string | null): string | null {
  if (baseNetwork === 'sim') return 'on Coffer’s own EVM chain';
  if (baseNetwork === DEMO_EVM_NETWORK) return 'on the local EVM chain of coffer demo-x402, not Base';
  return null;
}

/**
 * The dashboard's faucet button on sim, by rail: its label, and what a refusal for want of test money
 * names (core/treasury/allocations.ts faucetWords), so the two never part.
 */
export const faucetAction = (rail: Rail): string => (rail === 'base' ? 'Add test USDC on Base' : 'Add test USDC');
