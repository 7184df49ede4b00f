import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KeyStorePreference } from '../keys/open-secret-backend.js';

export const DEFAULT_PORT = 7402;

/** The data dir where neither --data-dir nor COFFER_HOME names one. */
export const defaultDataDir = (): string => resolve(join(homedir(), '.coffer'));

/** Everything `coffer serve` and the desktop app take from flags and COFFER_* variables. */
export interface ServeConfig {
  dataDir: string;
  port: number;
  /** Left out: the data dir's own network (sim for a new one). */
  network: string | undefined;
  keyStore: KeyStorePreference;
  usdcMint: string | undefined;
  /** The Base rail's EVM JSON-RPC, or `off` (server/boot/base-rail.ts). */
  baseRpc: string | undefined;
  baseUsdc: string | undefined;
  imageProviderUrl: string | undefined;
  imageProviderKey: string | undefined;
}

/** Why a --port or COFFER_PORT text is no port to listen on (0: any free one), or null when it is one. */
export function portProblem(text: string): string | null {
  return /^\d+$/.test(text) && Number(text) <= 65_535 ? null : `must be a number from 0 to 65535 (got "${text}")`;
}

/** API.md: flags win over COFFER_* variables, which win over defaults. */
export function resolveServeConfig(
  flags: { 'data-dir'?: string; port?: string; network?: string },
  processEnv: NodeJS.ProcessEnv = process.env,
): ServeConfig {
  // An empty variable counts as unset (COFFER_HOME= must not mean "the current directory").
  const env = Object.fromEntries(Object.entries(processEnv).filter(([, value]) => value !== '')) as NodeJS.ProcessEnv;
  const portText = flags.port ?? env.COFFER_PORT ?? String(DEFAULT_PORT);
  const badPort = portProblem(portText);
  if (badPort !== null) throw new Error(`${flags.port !== undefined ? '--port' : 'COFFER_PORT'} ${badPort}`);
  const keyStore = env.COFFER_KEYSTORE ?? 'auto';
  if (keyStore !== 'auto' && keyStore !== 'keychain' && keyStore !== 'file') {
    throw new Error(`COFFER_KEYSTORE must be auto, keychain or file (got "${keyStore}")`);
  }
  return {
    dataDir: resolve(flags['data-dir'] ?? env.COFFER_HOME ?? defaultDataDir()),
    port: Number(portText),
    network: flags.network ?? env.COFFER_NETWORK,
    keyStore,
    usdcMint: env.COFFER_USDC_MINT,
    baseRpc: env.COFFER_BASE_RPC,
    baseUsdc: env.COFFER_BASE_USDC,
    imageProviderUrl: env.COFFER_IMAGE_PROVIDER_URL,
    imageProviderKey: env.COFFER_IMAGE_PROVIDER_KEY,
  };
}
