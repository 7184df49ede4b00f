import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { deploy } from '../../../../../server/cli/commands/deploy.js';
import { fakeCoffer } from '../../../../fixtures/fake-coffer.js';

const WALLET = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const KEY = 'cof_agt_0123456789abcdefghijklmnopqrstuv';

let coffer: Awaited<ReturnType<typeof fakeCoffer>> | null = null;
afterEach(async () => {
  await coffer?.close();
  coffer = null;
});

/** A Coffer that deploys one agent, as POST /v1/agents/deploy answers it, and counts the deploys. */
async function deployingCoffer(): Promise<{ dir: string; deploys: () => number }> {
  let deploys = 0;
  coffer = await fakeCoffer((request, path) => {
    if (request.method === 'POST' && path === '/v1/agents/deploy') deploys += 1;
    return {
      status: 200,
      body: {
        agent: { agentId: 'scout', walletAddress: WALLET, wallets: { sol: WALLET, base: null } },
        policy: { dailyBudget: '5.00', maxPerPayment: '1.00' },
        apiKey: KEY,
        mcpConfig: { command: 'npx', args: ['coffer', 'mcp'], env: { COFFER_API_KEY: KEY } },
      },
    };
  });
  return { dir: coffer.dir, deploys: () => deploys };
}

const sink = () => {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
};

describe('coffer deploy --config', () => {
  it('where the key cannot be kept once the agent exists, shows it rather than lose it, says why, and exits 1', async () => {
    const { dir, deploys } = await deployingCoffer();
    const config = join(dir, 'scout', 'agent.json');
    // The file passes the check before the deploy; its write after fails (here its temporary file is
    // taken, as a disk that filled up meanwhile would fail it).
    mkdirSync(join(dir, 'scout'));
    mkdirSync(`${config}.${process.pid}.tmp`);
    const [out, err] = [sink(), sink()];
    expect(await deploy({ agentId: 'scout', dataDir: dir, config }, out.stream, err.stream)).toBe(1);
    expect(deploys()).toBe(1);
    expect(err.text()).toMatch(new RegExp(`^coffer: scout is deployed, but its key could not be kept in ${config}: EEXIST`));
    expect(out.text()).toContain(`Deployed scout (wallet ${WALLET}): 5.00 USDC in any 24 hours`);
    expect(out.text()).toContain(`Its API key, shown this once: ${KEY}`);
    expect(out.text()).toContain('"mcpServers"');
    // No file holds it, and no temporary copy of the key is left beside it.
    expect(existsSync(config)).toBe(false);
    expect(readdirSync(join(dir, 'scout')).filter((name) => name.endsWith('.tmp') && name !== `agent.json.${process.pid}.tmp`)).toEqual([]);
  });
});
