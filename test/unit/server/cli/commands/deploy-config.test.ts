import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { deploy } from '../../../../../server/cli/commands/owner-commands.js';

const WALLET = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const KEY = 'cof_agt_0123456789abcdefghijklmnopqrstuv';

let server: Server | null = null;
let dataDir: string | null = null;
afterEach(async () => {
  if (server !== null) await new Promise((resolve) => server!.close(resolve));
  if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
  server = dataDir = null;
});

/** A Coffer that deploys one agent, as POST /v1/agents/deploy answers it, and counts the deploys. */
async function deployingCoffer(): Promise<{ dir: string; deploys: () => number }> {
  let deploys = 0;
  server = createServer((request, response) => {
    if (request.method === 'POST' && request.url?.startsWith('/v1/agents/deploy')) deploys += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        agent: { agentId: 'scout', walletAddress: WALLET },
        policy: { dailyBudget: '5.00', maxPerPayment: '1.00' },
        apiKey: KEY,
        mcpConfig: { command: 'npx', args: ['coffer', 'mcp'], env: { COFFER_API_KEY: KEY } },
      }),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-deploy-config-'));
  writeFileSync(join(dataDir, 'connection.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, owner: 'o', ownerKey: 'cof_own_x' }));
  return { dir: dataDir, deploys: () => deploys };
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
    expect(out.text()).toContain(`Its API key, shown this once: ${KEY}`);
    expect(out.text()).toContain('"mcpServers"');
    // No file holds it, and no temporary copy of the key is left beside it.
    expect(existsSync(config)).toBe(false);
    expect(readdirSync(join(dir, 'scout')).filter((name) => name.endsWith('.tmp') && name !== `agent.json.${process.pid}.tmp`)).toEqual([]);
  });
});
