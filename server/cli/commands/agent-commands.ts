import { createApiClient } from '../api-client.js';
import { agentCredentials } from '../agent-config.js';
import { readOwnerConnection } from '../owner-connection.js';
import { openBrowser } from '../open-browser.js';

type Out = NodeJS.WritableStream;

/** `coffer status`: the linked agent's balance, policy and last payments. */
export async function status(configPath: string, out: Out = process.stdout): Promise<number> {
  const agent = agentCredentials(configPath);
  const api = createApiClient(agent.url, { owner: agent.owner, key: agent.apiKey });
  const path = `/v1/agents/${encodeURIComponent(agent.agentId)}`;
  const [balance, policy, history] = await Promise.all([
    api.call<{ balance: string; walletAddress: string; status: 'active' | 'suspended' }>('GET', `${path}/balance`),
    api.call<{ policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds: number; allowedServices: string[] } }>('GET', `${path}/policy`),
    api.call<{ payments: { timestamp: string; service: string; amount: string; status: string; protocol: string; resource: string | null }[] }>('GET', `${path}/spend-history`, undefined, { limit: '5' }),
  ]);
  const p = policy.body.policy;
  out.write(`Agent ${agent.agentId} at ${agent.url}\n`);
  out.write(`  status   ${balance.body.status === 'suspended' ? 'STOPPED: every payment is refused until the owner resumes it' : 'active'}\n`);
  out.write(`  wallet   ${balance.body.walletAddress}\n`);
  out.write(`  balance  ${balance.body.balance} USDC\n`);
  out.write(`  policy   ${p.dailyBudget} USDC a day, at most ${p.maxPerPayment} a payment, cooldown ${p.cooldownSeconds} s, services: ${p.allowedServices.length ? p.allowedServices.join(', ') : 'any'}\n`);
  out.write(history.body.payments.length ? '  recent payments:\n' : '  no payments yet\n');
  for (const payment of history.body.payments) {
    const bought = payment.protocol === 'x402' ? `  x402 ${payment.resource ?? ''}` : '';
    out.write(`    ${payment.timestamp}  ${payment.amount.padStart(10)} USDC  ${payment.service}  (${payment.status})${bought}\n`);
  }
  return 0;
}

/** `coffer pay <service> <amount>`: pays from the linked agent's wallet and prints the receipt. */
export async function payCommand(
  configPath: string,
  args: { service: string; amount: string; recipient?: string; nonce?: string; description?: string },
  out: Out = process.stdout,
): Promise<number> {
  const agent = agentCredentials(configPath);
  const api = createApiClient(agent.url, { owner: agent.owner, key: agent.apiKey });
  const { body } = await api.call<{ paymentId: string; txSignature: string; amount: string; xPaymentHeader: string }>(
    'POST',
    `/v1/agents/${encodeURIComponent(agent.agentId)}/pay`,
    { service: args.service, amount: args.amount, currency: 'USDC', description: args.description ?? 'coffer pay', recipient: args.recipient, nonce: args.nonce },
  );
  out.write(`Paid ${body.amount} USDC (${body.paymentId}, transaction ${body.txSignature}).\nX-Payment: ${body.xPaymentHeader}\n`);
  return 0;
}

/**
 * `coffer kill [agent] | --all`: an agent can always stop itself; stopping another agent or all of
 * them takes the owner's key (the connection file of the running Coffer).
 */
export async function kill(
  configPath: string,
  args: { agentId?: string; all: boolean; dataDir?: string },
  out: Out = process.stdout,
): Promise<number> {
  if (args.all || args.agentId !== undefined) {
    let self: { agentId: string } | null = null;
    try {
      self = agentCredentials(configPath);
    } catch {
      // no linked agent: an owner command
    }
    if (!args.all && self !== null && args.agentId === self.agentId) return killSelf(configPath, out);
    const owner = readOwnerConnection(args.dataDir);
    const api = createApiClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
    if (args.all) {
      const { body } = await api.call<{ suspended: string[] }>('POST', '/v1/kill-all');
      out.write(body.suspended.length ? `Stopped ${body.suspended.length} agent(s): ${body.suspended.join(', ')}\n` : 'Every agent was already stopped.\n');
      return 0;
    }
    await api.call('POST', `/v1/agents/${encodeURIComponent(args.agentId!)}/kill`);
    out.write(`Stopped ${args.agentId}: its payments are refused until the owner resumes it.\n`);
    return 0;
  }
  return killSelf(configPath, out);
}

async function killSelf(configPath: string, out: Out): Promise<number> {
  const agent = agentCredentials(configPath);
  const api = createApiClient(agent.url, { owner: agent.owner, key: agent.apiKey });
  await api.call('POST', `/v1/agents/${encodeURIComponent(agent.agentId)}/kill`);
  out.write(`Stopped ${agent.agentId}: its payments are refused until the owner resumes it.\n`);
  return 0;
}

/** `coffer open`: the dashboard, signed in through a fresh one-time login link (owner only). */
export async function open(args: { dataDir?: string }, out: Out = process.stdout): Promise<number> {
  const owner = readOwnerConnection(args.dataDir);
  const api = createApiClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  const { body } = await api.call<{ url: string }>('POST', '/v1/session/login-link');
  const opened = await openBrowser(body.url);
  out.write(opened ? `Opened the dashboard in your browser.\n` : `Open this one-time link in your browser (10 minutes):\n  ${body.url}\n`);
  return 0;
}
