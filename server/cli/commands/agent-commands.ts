import { createApiClient } from '../api-client.js';
import { agentCredentials } from '../agent-config.js';
import { readOwnerConnection } from '../owner-connection.js';
import { openBrowser } from '../open-browser.js';

/** "1 agent", "2 agents". */
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

type Out = NodeJS.WritableStream;

/** A moment as this machine's clock shows it: the time alone today, the date too on another day. */
export function localTime(iso: string, now = new Date()): string {
  const at = new Date(iso);
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay
    ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : at.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** `coffer status`: the linked agent's balance, policy, what it spent in the last 24 h, and its last payments. */
export async function status(configPath: string, out: Out = process.stdout): Promise<number> {
  const agent = agentCredentials(configPath);
  const api = createApiClient(agent.url, { owner: agent.owner, key: agent.apiKey });
  const path = `/v1/agents/${encodeURIComponent(agent.agentId)}`;
  const [balance, policy, history] = await Promise.all([
    api.call<{ balance: string; walletAddress: string; status: 'active' | 'suspended' }>('GET', `${path}/balance`),
    api.call<{ policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds: number; allowedServices: string[] }; spent24h: string }>('GET', `${path}/policy`),
    api.call<{ payments: { timestamp: string; service: string; amount: string; status: string; protocol: string; resource: string | null }[] }>('GET', `${path}/spend-history`, undefined, { limit: '5' }),
  ]);
  const p = policy.body.policy;
  out.write(`Agent ${agent.agentId} at ${agent.url}\n`);
  out.write(`  status   ${balance.body.status === 'suspended' ? 'STOPPED: every payment is refused until the owner resumes it' : 'active'}\n`);
  out.write(`  wallet   ${balance.body.walletAddress}\n`);
  out.write(`  balance  ${balance.body.balance} USDC\n`);
  out.write(`  spent    ${policy.body.spent24h} of ${p.dailyBudget} USDC in the last 24 h\n`);
  out.write(`  policy   ${p.dailyBudget} USDC a day, at most ${p.maxPerPayment} a payment, cooldown ${p.cooldownSeconds} s, services: ${p.allowedServices.length ? p.allowedServices.join(', ') : 'any'}\n`);
  out.write(history.body.payments.length ? '  recent payments:\n' : '  no payments yet\n');
  const times = history.body.payments.map((payment) => localTime(payment.timestamp));
  const width = Math.max(0, ...times.map((time) => time.length));
  history.body.payments.forEach((payment, index) => {
    const bought = payment.protocol === 'x402' ? `  x402 ${payment.resource ?? ''}` : '';
    out.write(`    ${times[index]!.padEnd(width)}  ${payment.amount.padStart(10)} USDC  ${payment.service}  (${payment.status})${bought}\n`);
  });
  return 0;
}

/** `coffer pay <service> <amount>`: pays from the linked agent's wallet and prints the receipt. */
export async function payCommand(
  configPath: string,
  args: { service: string; amount: string; recipient?: string; nonce?: string; description?: string; receiptOnly?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const agent = agentCredentials(configPath);
  const api = createApiClient(agent.url, { owner: agent.owner, key: agent.apiKey });
  const { body } = await api.call<{ paymentId: string; txSignature: string; amount: string; xPaymentHeader: string }>(
    'POST',
    `/v1/agents/${encodeURIComponent(agent.agentId)}/pay`,
    { service: args.service, amount: args.amount, currency: 'USDC', description: args.description ?? 'coffer pay', recipient: args.recipient, nonce: args.nonce },
  );
  // --receipt: the header's value alone, to compose (curl -H "X-Payment: $(coffer pay ... --receipt)").
  if (args.receiptOnly) out.write(`${body.xPaymentHeader}\n`);
  else out.write(`Paid ${body.amount} USDC (${body.paymentId}, transaction ${body.txSignature}).\nX-Payment: ${body.xPaymentHeader}\n`);
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
      out.write(body.suspended.length ? `Stopped ${plural(body.suspended.length, 'agent')}: ${body.suspended.join(', ')}\n` : 'Every agent was already stopped.\n');
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

/**
 * `coffer resume [agent] | --all`: resuming another agent, or all of them, takes the owner's key;
 * without either, the linked agent asks the owner to resume it (a request the owner decides).
 */
export async function resume(
  configPath: string,
  args: { agentId?: string; all: boolean; dataDir?: string },
  out: Out = process.stdout,
): Promise<number> {
  if (!args.all && args.agentId === undefined) {
    const agent = agentCredentials(configPath);
    const api = createApiClient(agent.url, { owner: agent.owner, key: agent.apiKey });
    const { status, body } = await api.call<{ approvalId?: string; status?: string }>('POST', `/v1/agents/${encodeURIComponent(agent.agentId)}/resume`);
    out.write(
      status === 202
        ? `Asked the owner to resume ${agent.agentId} (request ${body.approvalId}): they decide in the dashboard, under Approvals.\n`
        : `${agent.agentId} is ${body.status === 'active' ? 'active' : body.status}.\n`,
    );
    return 0;
  }
  const owner = readOwnerConnection(args.dataDir);
  const api = createApiClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  if (args.all) {
    const { body } = await api.call<{ resumed: string[] }>('POST', '/v1/resume-all');
    out.write(body.resumed.length ? `Resumed ${plural(body.resumed.length, 'agent')}: ${body.resumed.join(', ')}\n` : 'No agent was stopped.\n');
    return 0;
  }
  await api.call('POST', `/v1/agents/${encodeURIComponent(args.agentId!)}/resume`);
  out.write(`Resumed ${args.agentId}: it may pay again, within its policy.\n`);
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
