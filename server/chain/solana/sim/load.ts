import type { SimChain } from './chain.js';

/**
 * The embedded sim chain runs LiteSVM, whose native builds exist for Linux and macOS only (x64 and
 * arm64). Where it cannot load, only the sim network is out of reach: devnet, mainnet and any RPC URL
 * work everywhere. This says so instead of failing on the first import of the engine.
 */
export class SimChainUnavailableError extends Error {
  constructor(
    readonly platform: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      `the embedded sim chain (LiteSVM) cannot run on ${platform}: start Coffer on devnet (test USDC on Solana's public test network, ` +
        'with --network devnet or COFFER_NETWORK=devnet), on mainnet, or on an RPC URL',
      options,
    );
    this.name = 'SimChainUnavailableError';
  }
}

/** The sim chain's class, loaded only when the sim network is asked for (its native module with it). */
export async function loadSimChain(
  load: () => Promise<{ SimChain: typeof SimChain }> = () => import('./chain.js'),
): Promise<typeof SimChain> {
  try {
    return (await load()).SimChain;
  } catch (error) {
    throw new SimChainUnavailableError(`${process.platform}-${process.arch}`, { cause: error });
  }
}
