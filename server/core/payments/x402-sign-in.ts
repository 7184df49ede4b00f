import { CofferError } from '../../wire/errors.js';
import { requireAgentScope, type Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import type { X402SignInBody } from '../../wire/schemas.js';
import type { X402SignIn } from '../../wire/answers/payments.js';

/**
 * Sign-In-With-X for an agent (x402's `sign-in-with-x` extension): where a seller's 402 offers to
 * let a wallet that paid it before in without paying again, Coffer signs the seller's challenge with
 * the agent's wallet key, so the agent proves its earlier purchase instead of buying twice.
 *
 * It signs only what cannot be turned against the agent: a challenge bound to the very origin asked
 * (a proof for one site is never valid at another), for this Coffer's own chain, from a seller this
 * agent has paid (a payment to one of the offer's recipients that went ahead), for an agent not
 * stopped. It moves no money and reserves no budget; the seller decides whether the proof admits it,
 * and if not, the agent's next step is the payment, judged by its policy as ever.
 */
export async function signInX402(ctx: EngineContext, principal: Principal, agentId: string, body: X402SignInBody): Promise<X402SignIn> {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  if (agent.status === 'suspended') throw new CofferError('agent_suspended', `agent ${agentId} is stopped: it signs in nowhere`);
  const buyer = ctx.x402;
  const names = buyer?.networks.sol ?? null;
  if (buyer === null || names === null)
    throw new CofferError('unsupported_offer', `x402 sign-in is on devnet and mainnet; this Coffer runs on ${ctx.chain.network}`);
  const offer = buyer.readOffer({ headers: body.headers, body: body.body });
  const challenge = offer === null ? null : buyer.readSignIn(offer);
  if (offer === null || challenge === null)
    throw new CofferError('sign_in_not_offered', 'the 402 offers no sign-in (no sign-in-with-x extension)');
  const asked = new URL(body.url);
  if (challenge.domain !== asked.host || !URL.canParse(challenge.uri) || new URL(challenge.uri).origin !== asked.origin) {
    throw new CofferError(
      'sign_in_wrong_origin',
      `the sign-in challenge is for ${challenge.domain} (${challenge.uri}), not ${asked.host}: a proof for another site is never signed`,
    );
  }
  const chainId = names.v2;
  if (!challenge.ed25519Chains.includes(chainId)) {
    throw new CofferError(
      'sign_in_not_offered',
      `the seller takes sign-in proofs on ${challenge.ed25519Chains.join(', ') || 'no Solana chain'}, not ${chainId}`,
    );
  }
  const recipients = [...new Set(offer.requirements.filter((r) => r.network === chainId).map((r) => r.payTo))];
  const paid = recipients.some((recipient) => ctx.store.hasPaidRecipient(principal.owner, agentId, recipient));
  if (!paid) {
    throw new CofferError('not_paid_before', `agent ${agentId} has not paid this seller before: there is no earlier purchase to prove`);
  }
  const header = await buyer.signIn(offer, chainId, agent.walletAddress, body.url);
  return { header, address: agent.walletAddress, chainId };
}
