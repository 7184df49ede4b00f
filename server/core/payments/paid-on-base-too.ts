import { CofferError } from '../../wire/errors.js';
import { formatUsdc, tryParseUsdc } from '../../wire/money.js';
import type { EngineContext } from '../context.js';
import type { ServiceRecord } from '../ports/store.js';
import { openBase } from '../rails.js';
import { freeBalance, walletReading } from '../wallet-balance.js';
import { getAgentOrThrow } from '../agent-lookup.js';

/**
 * A registry payment asked with no rail goes on Solana (/pay's default). Refused there for want of
 * funds, where the service is paid on Base too and the agent's Base wallet holds the amount beside
 * what it has pending there, the refusal says so, and how: asked with `rail: "base"` (helper 189: the
 * words sent an agent with money on Base to ask the owner for more). Only said: the payment stays on
 * the rail asked. A service paid on Solana only says so where the Base wallet holds the amount. Where
 * the Base wallet cannot be read now, the refusal is answered as it was.
 */
export async function sayingBaseHoldsIt<T>(
  ctx: EngineContext,
  asked: { owner: string; agentId: string; amount: string; service: ServiceRecord | null; onDefaultRail: boolean },
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw (await withBaseFunds(ctx, asked, error)) ?? error;
  }
}

async function withBaseFunds(
  ctx: EngineContext,
  { owner, agentId, amount, service, onDefaultRail }: Parameters<typeof sayingBaseHoldsIt>[1],
  error: unknown,
): Promise<CofferError | null> {
  if (!(error instanceof CofferError) || error.code !== 'insufficient_funds' || error.agentStopped !== undefined) return null;
  const wanted = tryParseUsdc(amount);
  if (!onDefaultRail || service === null || openBase(ctx) === null || wanted === null) return null;
  try {
    const agent = getAgentOrThrow(ctx, owner, agentId);
    const reading = await withinReadTime(walletReading(ctx, agent, 'base', wanted).then(({ reading }) => reading));
    if (reading === null) return null;
    const free = freeBalance(ctx, agent, 'base', reading);
    if (free < wanted) return null;
    // A service paid on Solana alone (images among them): why the money on Base does not pay it
    // (helper 192: an agent with 3.00 on Base was told only that Solana held 0.00).
    if (service.base == null) {
      return new CofferError(
        'insufficient_funds',
        `${error.message}; the service is paid on Solana only: the ${formatUsdc(free)} USDC free in this wallet on Base cannot pay it`,
      );
    }
    return new CofferError(
      'insufficient_funds',
      `${error.message}; the service is paid on Base too, where this wallet holds ${formatUsdc(free)} USDC free: asked with rail "base", it is paid there`,
    );
  } catch {
    return null;
  }
}

/**
 * How long a refusal waits for the Base wallet's reading before it is answered as it was: a node slow
 * to answer (Base's client waits 15 s, and asks twice) never delays a refusal about Solana by more
 * (helper 194: every refusal for funds of a registry service reads Base now).
 */
const BASE_READ_MS = 2000;

/** The reading, or null where it failed or took longer than BASE_READ_MS. */
function withinReadTime<T>(read: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), BASE_READ_MS);
    timer.unref();
  });
  return Promise.race([read.catch(() => null), late]).finally(() => clearTimeout(timer));
}
