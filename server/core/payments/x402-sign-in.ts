import { CofferError, refuse } from '../../wire/errors.js';
import { requireAgentScope, type Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import type { X402SignInBody } from '../../wire/schemas.js';
import type { X402SignIn } from '../../wire/answers/payments.js';
import { checksummedEvmAddress, isEvmAddress, railFirst, type Rail } from '../../wire/rails.js';
import { addressOn } from '../rails.js';
import { expiredRefusal } from '../policy/expiry.js';
import { isAllowed } from '../policy/rules.js';
import { registryServiceFor } from '../registry/registry.js';
import { preferredRailOf, timeZoneOf } from '../settings.js';

/**
 * Sign-In-With-X for an agent (x402's `sign-in-with-x` extension): where a seller's 402 offers to
 * let a wallet that paid it before in without paying again, Coffer signs the seller's challenge with
 * the agent's wallet key, so the agent proves its earlier purchase instead of buying twice.
 *
 * It signs only what cannot be turned against the agent: a challenge bound to the very origin asked
 * (a proof for one site is never valid at another), for this Coffer's own chain, from a seller this
 * agent has paid (a payment to one of the offer's recipients that went ahead) and its policy still
 * lets it pay, for an agent not stopped. The challenge's times are the seller's to judge: an official
 * seller takes a proof within 5 minutes of the `issuedAt` it wrote, by its own clock, so a check
 * here by this machine's clock would only refuse real sign-ins (and buy again) where it runs slow.
 * It moves no money and reserves no budget; the seller decides whether the proof admits it, and if
 * not, the agent's next step is the payment, judged by its policy as ever.
 */
export async function signInX402(ctx: EngineContext, principal: Principal, agentId: string, body: X402SignInBody): Promise<X402SignIn> {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  if (agent.status === 'suspended')
    throw new CofferError(
      'agent_suspended',
      `agent "${agentId}" is ${agent.archivedAt === null ? 'stopped' : 'archived'}: it signs in nowhere`,
    );
  const buyer = ctx.x402;
  if (buyer === null || (buyer.networks.sol === null && buyer.networks.base === null))
    throw new CofferError(
      'unsupported_offer',
      `x402 pays Solana on devnet and mainnet, and this Coffer's Solana is ${ctx.chain.network}; this Coffer's Base rail is off`,
    );
  const offer = buyer.readOffer({ headers: body.headers, body: body.body });
  const challenge = offer === null ? null : buyer.readSignIn(offer);
  if (offer === null || challenge === null)
    throw new CofferError('sign_in_not_offered', 'the 402 offers no sign-in (no sign-in-with-x extension)');
  const asked = new URL(body.url);
  // A uri with a user name (`http://bank@site`) is of the site's origin, but reads as another name on
  // the lines the agent's key signs: refused as another site's.
  const uri = URL.canParse(challenge.uri) ? new URL(challenge.uri) : null;
  if (challenge.domain !== asked.host || uri === null || uri.origin !== asked.origin || uri.username !== '' || uri.password !== '') {
    throw new CofferError(
      'sign_in_wrong_origin',
      `the sign-in challenge is for ${challenge.domain} (${challenge.uri}), not ${asked.host}: a proof for another site is never signed`,
    );
  }
  // A challenge no SIWE/SIWS message can carry is signed nowhere (its times are the seller's to judge, above).
  if (challenge.fault !== null) {
    throw new CofferError('sign_in_not_offered', `the seller's sign-in challenge cannot be signed: ${challenge.fault}`);
  }
  // The chains this Coffer proves a wallet on that the seller takes: Solana's (Ed25519), Base's (EIP-191).
  const offered = [
    { rail: 'sol' as const, chainId: buyer.networks.sol?.v2 ?? null, takes: challenge.ed25519Chains },
    { rail: 'base' as const, chainId: buyer.networks.base?.v2 ?? null, takes: challenge.eip191Chains },
  ].filter(
    (entry): entry is { rail: Rail; chainId: string; takes: string[] } => entry.chainId !== null && entry.takes.includes(entry.chainId),
  );
  if (offered.length === 0) {
    const ours = [buyer.networks.sol?.v2, buyer.networks.base?.v2].filter((chain) => chain !== undefined).join(' or ');
    const theirs = [...challenge.ed25519Chains, ...challenge.eip191Chains].join(', ') || 'no chain';
    throw new CofferError('sign_in_not_offered', `the seller takes sign-in proofs on ${theirs}, not ${ours}`);
  }
  // The first of them on which this agent paid one of the offer's recipients there: the rail asked
  // for (the rail it would pay on) first, else the owner's preferred one. Any of them proves an
  // earlier purchase; the one asked for is the account the agent means to be known by.
  const spelled = (rail: Rail, address: string) => (rail === 'base' && isEvmAddress(address) ? checksummedEvmAddress(address) : address);
  const paid = railFirst(offered, body.rail ?? preferredRailOf(ctx))
    .flatMap(({ rail, chainId }) =>
      offer.requirements
        .filter((requirement) => requirement.network === chainId)
        .map((requirement) => ({ rail, chainId, recipient: spelled(rail, requirement.payTo) })),
    )
    .find(({ recipient }) => ctx.store.hasPaidRecipient(principal.owner, agentId, recipient));
  if (paid === undefined) {
    throw new CofferError('not_paid_before', `agent ${agentId} has not paid this seller before: there is no earlier purchase to prove`);
  }
  // The policy's say on who the agent deals with: a seller it may no longer pay is one it no longer signs in to.
  const policy = ctx.store.getPolicy(principal.owner, agentId);
  const { serviceId, service } = registryServiceFor(ctx, paid.recipient, body.url);
  refuse(
    expiredRefusal(policy.expiresAt, ctx.clock.now(), () => timeZoneOf(ctx)) ??
      (isAllowed(policy.allowedServices, serviceId, service !== null, paid.recipient)
        ? null
        : new CofferError(
            'service_not_allowed',
            `service "${serviceId}" is not one of this agent's allowed services: it signs in there no more`,
          )),
  );
  const address = addressOn(ctx, agent.walletAddress, paid.rail);
  const header = await buyer.signIn(offer, paid.chainId, address, body.url, paid.rail);
  return { header, address, chainId: paid.chainId };
}
