/**
 * The words for a network where a person reads it (the dashboard, the tray, the CLI): test money is
 * said to be test money. Pure and browser-safe (the dashboard imports it).
 */

/**
 * The local cluster `coffer demo-x402` runs: test SOL and test USDC on this machine only. x402 names no
 * local network, so its USDC sits at devnet's mint address and x402 speaks of it as devnet; Coffer
 * names it by what it is, so nothing on it is ever taken for devnet funds.
 */
export const DEMO_LOCALNET = 'demo-localnet';

/** A short label for a chip beside a balance: the network's name, with "test money" where it is. */
export function networkChip(network: string): string {
  return network === DEMO_LOCALNET ? `${DEMO_LOCALNET} (test money)` : network;
}

/** What the treasury's gas on Base is, by its network: test ETH on this machine's test chains (sim, the demo's). */
export function gasWords(network: string): 'test ETH' | 'ETH' {
  return network === 'sim' || network === DEMO_LOCALNET ? 'test ETH' : 'ETH';
}

/** The network in a sentence ("Deposits on ..."). */
export function networkWords(network: string): string {
  if (network === 'sim') return 'the embedded sim chain (test USDC)';
  if (network === DEMO_LOCALNET) return 'the local test cluster of coffer demo-x402 (test USDC, not devnet)';
  return network;
}
