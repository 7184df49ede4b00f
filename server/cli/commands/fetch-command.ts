import { agentCredentials } from '../../linked-agent/agent-config.js';
import { CHAIN_WAIT_MS } from '../../x402/paying-fetch/chain-wait.js';
import { payingFetch } from '../../x402/paying-fetch/paying-fetch.js';
import { urlAsSent } from '../../wire/url-as-sent.js';
import { PaymentError } from '../../x402/paying-fetch/payment-error.js';
import { afterFailedCall } from '../../x402/paying-fetch/failed-call.js';
import { nextStep } from '../next-step.js';
import { afterPaymentStopped } from './agent-commands.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { usdcWords } from '../../wire/network-words.js';
import { keyClient } from '../../client/coffer-client.js';
import { withdrawnIfInterrupted } from '../held-interrupt.js';
import { agentCommandLine } from '../agent-command-line.js';
import { localTime } from '../local-time.js';
import { exitStatusOf } from '../exit-status.js';

type Out = NodeJS.WritableStream;

/**
 * `coffer fetch <url>`: calls a URL as the linked agent; a 402 (Coffer's terms or an x402 offer) is
 * paid within the agent's policy and the request is sent again with the payment. The body bought goes
 * to stdout, what was paid (or that nothing was) to stderr, so the command pipes like curl.
 */
export async function fetchCommand(
  configPath: string,
  args: { url: string; method?: string; headers: [name: string, value: string][]; data?: string; rail?: Rail; approvalId?: string },
  out: Out = process.stdout,
  err: Out = process.stderr,
): Promise<number> {
  const agent = agentCredentials(configPath);
  const headers = new Headers(args.headers);
  const method = (args.method ?? (args.data === undefined ? 'GET' : 'POST')).toUpperCase();
  try {
    // Held for the owner's yes: said, then waited for (the body still goes to stdout once bought);
    // interrupted meanwhile, its request is withdrawn.
    const { response, settlement, signedIn } = await withdrawnIfInterrupted(
      keyClient(agent.url, { owner: agent.owner, key: agent.apiKey }),
      err,
      (onHeld) =>
        payingFetch(
          args.url,
          { method, headers, ...(args.data === undefined ? {} : { body: args.data }) },
          {
            agent: { cofferUrl: agent.url, owner: agent.owner, agentId: agent.agentId, apiKey: agent.apiKey },
            // The URL as sent, as the payment records it: as typed, a character no URL holds as sent
            // (U+202E, a space) would have the description refused before anything is paid.
            description: `coffer fetch ${method} ${urlAsSent(args.url)}`,
            ...(args.rail === undefined ? {} : { rail: args.rail }),
            // An earlier fetch's request (it was killed before the owner decided): used, not asked anew.
            ...(args.approvalId === undefined ? {} : { approvalId: args.approvalId }),
            onHeld,
            onChainWait: () =>
              err.write(
                `Coffer has not confirmed the payment yet (the chain has not answered): waiting up to ${CHAIN_WAIT_MS / 1000} s. This call pays it once at most; stopped or run again, check ${agentCommandLine(['activity'], configPath)} first.\n`,
              ),
          },
        ),
      // The same call again (its method, headers, body and rail: what it pays for), with the request,
      // until it ends: for a Coffer paywall's 402, with its terms (what the yes paid is presented then).
      ({ approvalId, expiresAt }) =>
        `${agentCommandLine(fetchWords(args, { rail: args.rail, approvalId }), configPath)} picks it up, until ${localTime(expiresAt)}`,
    );
    if (signedIn !== undefined) err.write(`Signed in with wallet ${signedIn.address} (paid there before); nothing paid.\n`);
    // What Coffer says of the payment once the seller's answer reached it (a few milliseconds).
    const payment = await settlement;
    // Said, so that a free URL is not taken for one paid; a failed answer (a 402 left unpaid too) is
    // said below, after its body, not first as if the call went through.
    const nothingPaid = payment === null && signedIn === undefined;
    if (nothingPaid && response.ok) err.write(`Nothing paid: ${args.url} answered without asking for payment.\n`);
    if (payment !== null) {
      const landed = payment.txSignature === null ? 'its transaction not seen yet' : `transaction ${payment.txSignature}`;
      err.write(
        `Paid ${payment.amount} ${usdcWords(payment.network)} on ${railName(payment.rail)}${args.approvalId === undefined ? '' : ` under request ${args.approvalId}`} (${payment.protocol === 'x402' ? 'x402' : 'Coffer receipt'}, ${payment.paymentId}, ${payment.status}, ${landed}).\n`,
      );
      if (payment.agentStopped !== undefined) err.write(`${afterPaymentStopped(agent.agentId, payment.agentStopped.reason)}\n`);
    }
    const body = Buffer.from(await response.arrayBuffer());
    out.write(body);
    // At a terminal the prompt starts on a line of its own; piped, the bytes stay as they came.
    if ((out as { isTTY?: boolean }).isTTY && body.length > 0 && body[body.length - 1] !== 0x0a) out.write('\n');
    if (!response.ok) {
      const unpaid = nothingPaid && response.status !== 402 ? '; nothing paid' : '';
      err.write(`\n${args.url} answered ${response.status} ${response.statusText}${unpaid}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (!(error instanceof PaymentError)) throw error;
    const paid = error.details.payment;
    const code = error.details.cofferCode ?? error.code;
    err.write(`coffer: ${error.message} (${code})\n`);
    if (paid) err.write(`${afterFailedCall(paid)}\n`);
    // What the agent's terminal can do about Coffer's refusal, as `coffer pay` says it; short on one
    // rail where the 402 is payable on the other too, the same fetch there first (helper 183: the words
    // said "ask again with the rail", and the next step was the owner's funding alone; helper 189: Solana too).
    const stopped = error.details.agentStopped !== undefined;
    const next = nextStep('fetch', code, { agentId: agent.agentId, rail: args.rail, configPath, stopped });
    const instead = stopped ? undefined : error.details.otherRail;
    if (instead !== undefined)
      err.write(
        `next: ${agentCommandLine(fetchWords(args, { rail: instead }), configPath)} pays it from its wallet on ${railName(instead)}${next === null ? '' : `; or ${next}`}\n`,
      );
    else if (next !== null) err.write(`next: ${next}\n`);
    return exitStatusOf(code);
  }
}

/** The same fetch as typed (credentials left out), on `rail`, picking up `approvalId` where given. */
function fetchWords(
  args: { url: string; method?: string; headers: [name: string, value: string][]; data?: string },
  as: { rail: Rail | undefined; approvalId?: string },
): string[] {
  return [
    'fetch',
    args.url,
    ...(args.method === undefined ? [] : ['--method', args.method]),
    ...args.headers.flatMap(([name, value]) => ['--header', withoutCredential(`${name}: ${value}`)]),
    ...(args.data === undefined ? [] : ['--data', args.data]),
    ...(as.rail === undefined ? [] : ['--rail', as.rail]),
    ...(as.approvalId === undefined ? [] : ['--approval', as.approvalId]),
  ];
}

/** Headers that carry a credential (stderr is often kept: CI logs, an MCP host's transcript, a model's context). */
const CREDENTIAL_HEADER = /^\s*(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token)\s*:/i;

/** A header as the pick-up line prints it: a credential named, its value left for the agent to give again. */
export const withoutCredential = (header: string) =>
  CREDENTIAL_HEADER.test(header) ? `${header.slice(0, header.indexOf(':')).trim()}: <as before, not printed>` : header;
