import { hostname, userInfo } from 'node:os';
import { createApiClient, CofferApiError } from '../api-client.js';
import { checkConfigWritable, writeAgentConfig, type AgentConfig } from '../agent-config.js';
import { openBrowser } from '../open-browser.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface LinkAnswer {
  status: 'pending' | 'completed';
  agentId?: string;
  walletAddress?: string;
  apiKey?: string;
  owner?: string;
  url?: string;
}

/**
 * `coffer link`: asks the owner, in the browser, to make this terminal an agent. Shows a code to
 * match on the page, polls every 2 s, and writes the agent's config (0600) once the owner approves.
 */
export async function link(options: { url: string; configPath: string; force?: boolean; out?: NodeJS.WritableStream }): Promise<number> {
  const out = options.out ?? process.stdout;
  checkConfigWritable(options.configPath, options.force ?? false);
  const tty = 'isTTY' in out && Boolean((out as NodeJS.WriteStream).isTTY);
  const api = createApiClient(options.url, {});
  const user = (() => {
    try {
      return userInfo().username;
    } catch {
      return 'unknown';
    }
  })();
  const { body: session } = await api.call<{ token: string; linkUrl: string; expiresAt: string; code: string }>('POST', '/v1/link-sessions', {
    name: 'coffer-cli',
    hostname: hostname(),
    user,
  });
  const opened = await openBrowser(session.linkUrl);
  out.write(`${opened ? 'Opened your browser at' : 'Open this page in your browser (signed in to Coffer):'}\n  ${session.linkUrl}\n`);
  out.write(`Check that the page shows the code:  ${session.code}\n`);

  const expires = new Date(session.expiresAt).getTime();
  let frame = 0;
  let wait = 2000;
  for (;;) {
    for (let waited = 0; waited < wait; waited += 100) {
      if (tty) {
        const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
        out.write(`\r${SPINNER[frame++ % SPINNER.length]} Waiting for the owner to approve… (${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left) `);
      }
      await sleep(100);
    }
    let answer: LinkAnswer;
    try {
      answer = (await api.call<LinkAnswer>('GET', `/v1/link-sessions/${encodeURIComponent(session.token)}`)).body;
      wait = 2000;
    } catch (error) {
      if (error instanceof CofferApiError && error.code === 'slow_down') {
        wait = 3000;
        continue;
      }
      if (tty) out.write('\n');
      throw error;
    }
    if (answer.status !== 'completed') continue;
    if (tty) out.write('\r\x1b[K');
    const config: AgentConfig = {
      agentId: answer.agentId!,
      walletAddress: answer.walletAddress!,
      apiKey: answer.apiKey!,
      linkedAt: new Date().toISOString(),
      owner: answer.owner!,
      url: answer.url!,
    };
    try {
      writeAgentConfig(options.configPath, config);
    } catch (error) {
      // The key exists only here now: never lose it.
      process.stderr.write(`Could not write ${options.configPath} (${(error as Error).message}). Keep these credentials:\n${JSON.stringify(config, null, 2)}\n`);
      return 1;
    }
    out.write(`Linked as agent ${config.agentId} (wallet ${config.walletAddress}).\n`);
    out.write(`Saved to ${options.configPath} (readable only by you).\n\n`);
    out.write('Next:\n');
    out.write('  coffer status              balance, policy and recent payments\n');
    out.write('  coffer pay <service> <amt> pay for a service from this wallet\n');
    out.write('  coffer mcp                 the MCP tool server: add it to your MCP host with\n');
    out.write(`    {"mcpServers": {"coffer": {"command": "${process.execPath}", "args": ["${process.argv[1] ?? 'coffer'}", "mcp"]}}}\n`);
    out.write('The owner funds this wallet from the dashboard; until then payments are refused.\n');
    return 0;
  }
}
