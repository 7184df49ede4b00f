import type { CofferClient } from '../../client/coffer-client.js';
import { tryParseUsdc } from '../../wire/money.js';
import { agentCommandLine } from '../agent-command-line.js';

/**
 * A registry service's payment refused for want of funds on Solana, no rail asked: where the service
 * is paid on Base too and the agent's wallet there holds the amount free, the same payment on Base,
 * as typed, and what the wallet holds there; else null. Read after the refusal with the agent's own
 * key: a read that fails adds nothing (the owner's funding stays the next step).
 */
export async function payOnBaseInstead(
  api: Pick<CofferClient, 'balance' | 'service'>,
  agentId: string,
  payment: { service: string; amount: string; nonce?: string; description?: string; receiptOnly?: boolean },
  configPath: string,
): Promise<string | null> {
  const wanted = tryParseUsdc(payment.amount);
  if (wanted === null) return null;
  try {
    const [held, listing] = await Promise.all([api.balance(agentId), api.service(payment.service)]);
    const free = held.baseNetwork === null || held.available.base === null ? null : tryParseUsdc(held.available.base);
    if (listing.base === null || free === null || free < wanted) return null;
    // The same call, each flag it was given carried over, so that pasted it is that payment on Base.
    const words = [
      'pay',
      payment.service,
      payment.amount,
      '--rail',
      'base',
      ...(payment.nonce === undefined ? [] : ['--nonce', payment.nonce]),
      ...(payment.description === undefined ? [] : ['--description', payment.description]),
      ...(payment.receiptOnly === true ? ['--receipt'] : []),
    ];
    return `${agentCommandLine(words, configPath)} pays it on Base, where its wallet holds ${held.available.base} USDC free`;
  } catch {
    return null;
  }
}
