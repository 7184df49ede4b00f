import { hostname, userInfo } from 'node:os';
import { keyClient, type CofferClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import type { LinkPoll, LinkSession } from '../../wire/answers/link-sessions.js';
import { checkConfigWritable, defaultConfigPath, writeAgentConfig, type AgentConfig } from '../../linked-agent/agent-config.js';
import { openBrowser } from '../open-browser.js';
import { cofferMcpLaunch, runsFromNpxCache, shellCommand } from '../../boot/cli-invocation.js';
import { mcpHostConfig } from '../../wire/mcp-config.js';
import { heldOn } from './rail-lines.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
type Completed = Extract<LinkPoll, { status: 'completed' }>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `coffer link`: asks the owner, in the browser, to make this terminal an agent. Shows a code to
 * match on the page, polls every 2 s, and writes the agent's config (0600) once the owner approves.
 */
export async function link(options: { url: string; configPath: string; force?: boolean; out?: NodeJS.WritableStream }): Promise<number> {
  const out = options.out ?? process.stdout;
  checkConfigWritable(options.configPath, options.force ?? false);
  const tty = 'isTTY' in out && Boolean((out as NodeJS.WriteStream).isTTY);
  const api = keyClient(options.url, {});
  const session = await api.createLinkSession({ name: 'coffer-cli', hostname: hostname(), user: userName() });
  const opened = await openBrowser(session.linkUrl);
  out.write(`${opened ? 'Opened your browser at' : 'Open this page in your browser (signed in to Coffer):'}\n  ${session.linkUrl}\n`);
  out.write(`Check that the page shows the code:  ${session.code}\n`);
  const answer = await ownerApproved(api, session, { out, tty, url: options.url });
  if (tty) out.write('\r\x1b[K');
  const config: AgentConfig = {
    agentId: answer.agentId,
    walletAddress: answer.walletAddress,
    apiKey: answer.apiKey,
    linkedAt: new Date().toISOString(),
    owner: answer.owner,
    url: answer.url,
  };
  try {
    writeAgentConfig(options.configPath, config);
  } catch (error) {
    // The key exists only here now: never lose it.
    process.stderr.write(
      `Could not write ${options.configPath} (${(error as Error).message}). Keep these credentials:\n${JSON.stringify(config, null, 2)}\n`,
    );
    return 1;
  }
  linkedAndNext(config, options.configPath, await walletWords(config), out);
  return 0;
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

type View = { out: NodeJS.WritableStream; tty: boolean; url: string };

/**
 * Polls the link request until the owner approves it, a spinner with the time left on a terminal;
 * slower when the server asks to, and slower still while it does not answer.
 */
async function ownerApproved(api: CofferClient, session: LinkSession, { out, tty, url }: View): Promise<Completed> {
  const expires = new Date(session.expiresAt).getTime();
  let frame = 0;
  let wait = 2000;
  let unreachableSaid = false;
  for (;;) {
    if (Date.now() > expires) {
      if (tty) out.write('\n');
      throw new Error('the link request expired before the owner approved it: run coffer link again');
    }
    for (let waited = 0; waited < wait; waited += 100) {
      if (tty) {
        const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
        out.write(
          `\r${SPINNER[frame++ % SPINNER.length]} Waiting for the owner to approve… (${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left) `,
        );
      }
      await sleep(100);
    }
    let answer: LinkPoll;
    try {
      answer = await api.pollLinkSession(session.token);
      wait = 2000;
    } catch (error) {
      if (error instanceof CofferApiError && error.code === 'slow_down') {
        wait = 3000;
        continue;
      }
      // The server restarting (or briefly gone) does not end the request: it is kept in the data
      // dir. Keep asking, less often, until it answers or the request expires.
      if (error instanceof CofferApiError && (error.status === 0 || error.status >= 500)) {
        if (!unreachableSaid) {
          out.write(`${tty ? '\n' : ''}Coffer is not answering at ${url} (restarting?); still waiting for the owner…\n`);
          unreachableSaid = true;
        }
        wait = Math.min(wait * 2, 10_000);
        continue;
      }
      if (tty) out.write('\n');
      throw error;
    }
    unreachableSaid = false;
    if (answer.status === 'completed') return answer;
  }
}

/**
 * What the new wallet holds, in a line: read with the agent's own key, so it says what the owner's
 * approval did (funded it, or not yet), on each rail this Coffer pays on. Said plainly when Coffer
 * cannot be asked. `onBaseAlone`: it holds USDC on Base and none on Solana, so the payment "Next:"
 * suggests is asked for on Base.
 */
async function walletWords(config: AgentConfig): Promise<WalletWords> {
  // The owner's command, typed as this shell runs coffer (the owner's data dir is not this terminal's to know).
  const unfunded = `The owner funds this wallet (${shellCommand(['allocate', config.agentId, 'AMOUNT'])}, or the dashboard); until then payments are refused.`;
  try {
    const held = await keyClient(config.url, { owner: config.owner, key: config.apiKey }).balance(config.agentId);
    // An older Coffer answers neither; where the rail is open, a null balance is its node away (unknown).
    const base = held.baseNetwork ?? null;
    const onBase = base === null ? undefined : (held.balances?.base ?? null);
    const baseWallet = base === null ? null : (held.wallets?.base ?? null);
    if (held.balance === '0.00' && (onBase === undefined || onBase === '0.00'))
      return { words: `Its wallet is empty. ${unfunded}`, onBaseAlone: false, baseWallet };
    if (onBase === undefined) return { words: `Its wallet holds ${held.balance} USDC.`, onBaseAlone: false, baseWallet };
    return {
      words: `Its wallet holds ${heldOn(held.balance, 'sol')} and ${heldOn(onBase, 'base')}.`,
      // Funded on Base alone: a payment asked for with no rail goes on Solana, and would be refused.
      onBaseAlone: held.balance === '0.00' && onBase !== null,
      baseWallet,
    };
  } catch {
    return { words: unfunded, onBaseAlone: false, baseWallet: null };
  }
}

/** What the new wallet holds, in words; whether on Base alone; its Base account where that rail is open (else null). */
interface WalletWords {
  words: string;
  onBaseAlone: boolean;
  baseWallet: string | null;
}

/** Where the agent's config was saved, then what to run next from this shell, each as it runs. */
function linkedAndNext(config: AgentConfig, configPath: string, wallet: WalletWords, out: NodeJS.WritableStream): void {
  // Each rail's wallet where Base is open: one funded on Base alone is that account, not the Solana one.
  const wallets =
    wallet.baseWallet === null
      ? `wallet ${config.walletAddress}`
      : `wallets ${config.walletAddress} on Solana, ${wallet.baseWallet} on Base`;
  out.write(`Linked as agent ${config.agentId} (${wallets}).\n`);
  out.write(`Saved to ${configPath} (readable only by you).\n\n`);
  // A config saved elsewhere than the default is named in every command, or none of them finds it.
  const configArgs = configPath === defaultConfigPath() ? [] : ['--config', configPath];
  out.write('Next:\n');
  out.write(`  ${shellCommand(['status', ...configArgs])}\n      balance, policy and recent payments\n`);
  const onRail = wallet.onBaseAlone ? ['--rail', 'base'] : [];
  out.write(`  ${shellCommand(['pay', 'demo-weather', '0.01', ...onRail, ...configArgs])}\n      pay for a service from this wallet\n`);
  out.write('  The MCP tool server: add it to your MCP host with\n');
  // No env: the linked config file names the agent and holds its key.
  const { command, args } = cofferMcpLaunch();
  out.write(`    ${JSON.stringify(mcpHostConfig('coffer', { command, args: [...args, ...configArgs] }))}\n`);
  if (runsFromNpxCache()) {
    out.write(
      "  (This coffer runs from npx's cache, which a cache clean removes: install it for good with npm install -g, then link again.)\n",
    );
  }
  out.write(`${wallet.words}\n`);
}
