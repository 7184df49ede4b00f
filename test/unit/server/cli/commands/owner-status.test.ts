import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ownerStatus } from '../../../../../server/cli/commands/owner-status.js';
import { fakeCoffer } from '../../../../fixtures/fake-coffer.js';
import { shellCommand } from '../../../../../server/boot/cli-invocation.js';

const SOL = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const BASE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const row = (agentId: string, balances: { sol: string; base: string | null }) => ({
  agentId,
  walletAddress: `${agentId}-wallet`,
  wallets: { sol: `${agentId}-wallet`, base: BASE },
  status: 'active',
  balance: balances.sol,
  balances,
  spent24h: '0.00',
  held24h: '0.00',
  policy: { dailyBudget: '5.00' },
  tightestBudget: { budget: '5.00 USDC in any 24 hours', used: '0.00 USDC', percent: 0, warned: false },
});

const dashboard = (
  treasuryOnBase: string | null,
  agents: unknown[],
  baseNetwork: string | null = 'base-sepolia',
  archivedAgents: unknown[] = [],
) => ({
  treasury: {
    walletAddress: SOL,
    wallets: { sol: SOL, base: BASE },
    balances: { sol: '10.00', base: treasuryOnBase },
    baseGas: null,
    network: 'sim',
    baseNetwork,
  },
  agents,
  archivedAgents,
});

let coffer: Awaited<ReturnType<typeof fakeCoffer>> | null = null;
afterEach(async () => {
  await coffer?.close();
  coffer = null;
});

/** A Coffer that answers the overview's three reads and nothing else, and says which paths were asked. */
async function overviewCoffer(board: unknown): Promise<{ dir: string; asked: string[] }> {
  const asked: string[] = [];
  const answers: Record<string, unknown> = {
    '/v1/dashboard': board,
    '/v1/approvals': { approvals: [] },
    '/v1/link-sessions': { sessions: [] },
  };
  coffer = await fakeCoffer((_request, path) => {
    asked.push(path);
    const answer = answers[path];
    return answer === undefined
      ? { status: 404, body: { code: 'agent_not_found', error: 'no such agent' } }
      : { status: 200, body: answer };
  });
  return { dir: coffer.dir, asked };
}

async function printed(dir: string): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  expect(await ownerStatus({ dataDir: dir }, out)).toBe(0);
  return text;
}

describe('coffer status as the owner', () => {
  it("prints each agent's balance on each rail from the dashboard's rows, asking nothing per agent", async () => {
    const { dir, asked } = await overviewCoffer(
      dashboard('7.00', [row('reader', { sol: '1.00', base: '1.25' }), row('writer', { sol: '2.50', base: null })]),
    );
    const text = await printed(dir);
    expect(text).toMatch(/^ {4}reader +active +1\.00 USDC on Solana +1\.25 USDC on Base +0\.00 of 5\.00 in 24 h/m);
    // A Base node that answered for the treasury and not for this page of agents: unknown, said so.
    expect(text).toMatch(/^ {4}writer +active +2\.50 USDC on Solana +unknown on Base +0\.00 of 5\.00 in 24 h/m);
    expect(asked.sort()).toEqual(['/v1/approvals', '/v1/dashboard', '/v1/link-sessions']);
  });

  it('says nothing of Base where the rail is off, though every wallet has a Base address filed', async () => {
    const { dir } = await overviewCoffer(dashboard(null, [row('reader', { sol: '1.00', base: null })], null));
    const text = await printed(dir);
    expect(text).toMatch(/^ {4}reader +active +1\.00 USDC on Solana +0\.00 of 5\.00 in 24 h/m);
    expect(text).not.toMatch(/Base/);
  });

  it("keeps the agents' Base column where the rail is open and its node did not answer, and says why", async () => {
    const { dir } = await overviewCoffer(dashboard(null, [row('reader', { sol: '1.00', base: null })]));
    const text = await printed(dir);
    expect(text).toMatch(new RegExp(`unknown on Base +\\(${BASE}\\): its node did not answer\n`));
    expect(text).toMatch(/^ {4}reader +active +1\.00 USDC on Solana +unknown on Base +0\.00 of 5\.00 in 24 h/m);
  });

  it("names the Base rail's network where it is another than Solana's, test money said so", async () => {
    const { dir } = await overviewCoffer(dashboard('1.00', [], 'evm-790527'));
    expect(await printed(dir)).toMatch(
      /^Coffer at \S+, on the embedded sim chain \(test USDC\); Base on the local EVM chain of coffer demo-x402 \(test USDC, not Base\)\n/,
    );
    await coffer!.close();
    coffer = null;
    // The embedded chain on both rails: said once.
    const { dir: sim } = await overviewCoffer(dashboard('1.00', [], 'sim'));
    expect(await printed(sim)).toMatch(/^Coffer at \S+, on the embedded sim chain \(test USDC\)\n/);
  });

  it('with no agent left but archived ones, says so: their ids are taken for good', async () => {
    const { dir } = await overviewCoffer(dashboard('1.00', [], 'base-sepolia', [{ agentId: 'alice' }]));
    expect(await printed(dir)).toContain(
      `  no agents but 1 archived (its id stays its own): ${shellCommand(['deploy', 'AGENT', '--data-dir', dir])}\n` +
        `  archived  alice: stopped for good, its history kept (${shellCommand(['activity', 'alice', '--data-dir', dir])})\n`,
    );
    await coffer!.close();
    coffer = null;
    const { dir: fresh } = await overviewCoffer(dashboard('1.00', []));
    expect(await printed(fresh)).toContain(`  no agents yet: ${shellCommand(['deploy', 'AGENT', '--data-dir', fresh])}\n`);
  });

  it('names the archived agents under those in use, with how to read their history (helper 192: text status left them out)', async () => {
    const { dir } = await overviewCoffer(
      dashboard('1.00', [row('reader', { sol: '1.00', base: '0.00' })], 'base-sepolia', [
        { agentId: 'alice', balance: '0.00', balances: { sol: '0.00', base: '0.00' } },
        { agentId: 'bob', balance: '0.00', balances: { sol: '0.00', base: '0.00' } },
      ]),
    );
    expect(await printed(dir)).toContain(
      `  archived  alice, bob: stopped for good, their history kept (${shellCommand(['activity', 'alice', '--data-dir', dir])})\n`,
    );
  });

  it('says the daily budget once where it is the tightest; another tightest budget beside it', async () => {
    const monthly = {
      ...row('saver', { sol: '1.00', base: '0.00' }),
      tightestBudget: { budget: '1.00 USDC a month', used: '0.90 USDC', percent: 90, warned: true },
    };
    const { dir } = await overviewCoffer(dashboard('1.00', [row('reader', { sol: '1.00', base: '0.00' }), monthly]));
    const text = await printed(dir);
    expect(text).toMatch(/^ {4}reader +.+ +0\.00 of 5\.00 in 24 h \(0 %\)$/m);
    expect(text).not.toMatch(/in any 24 hours/);
    // The daily budget's share said too, beside the tightest.
    expect(text).toMatch(/^ {4}saver +.+ +0\.00 of 5\.00 in 24 h \(0 %\) +90 % of 1\.00 USDC a month \(warned\)$/m);
  });

  it('says a share under one percent as <1 %, not 0 %, where something was used', async () => {
    const little = {
      ...row('sipper', { sol: '1.00', base: '0.00' }),
      spent24h: '0.03',
      tightestBudget: { budget: '5.00 USDC in any 24 hours', used: '0.03 USDC', percent: 0, warned: false },
    };
    const monthly = {
      ...row('saver', { sol: '1.00', base: '0.00' }),
      spent24h: '0.01',
      tightestBudget: { budget: '50.00 USDC a month', used: '0.20 USDC', percent: 0, warned: false },
    };
    const { dir } = await overviewCoffer(dashboard('1.00', [little, monthly, row('idle', { sol: '1.00', base: '0.00' })]));
    const text = await printed(dir);
    expect(text).toMatch(/^ {4}sipper .* 0\.03 of 5\.00 in 24 h \(<1 %\)/m);
    expect(text).toMatch(/^ {4}saver .* 0\.01 of 5\.00 in 24 h \(<1 %\) +<1 % of 50\.00 USDC a month$/m);
    expect(text).toMatch(/^ {4}idle .* 0\.00 of 5\.00 in 24 h \(0 %\)/m);
  });

  it("says apart what of an agent's 24 h waits for the owner's yes, not paid", async () => {
    const waiting = {
      ...row('reader', { sol: '1.00', base: '0.00' }),
      spent24h: '3.00',
      held24h: '2.50',
      tightestBudget: { budget: '5.00 USDC in any 24 hours', used: '3.00 USDC', percent: 60, warned: false },
    };
    const monthly = {
      ...row('saver', { sol: '1.00', base: '0.00' }),
      spent24h: '1.00',
      held24h: '1.00',
      tightestBudget: { budget: '1.00 USDC a month', used: '1.00 USDC', percent: 100, warned: true },
    };
    const { dir } = await overviewCoffer(dashboard('1.00', [waiting, monthly, row('writer', { sol: '1.00', base: '0.00' })]));
    const text = await printed(dir);
    expect(text).toMatch(/^ {4}reader +.+ +3\.00 of 5\.00 in 24 h \(60 %; 2\.50 of it held for your yes, not paid\)$/m);
    expect(text).toMatch(
      /^ {4}saver +.+ +1\.00 of 5\.00 in 24 h \(20 %; 1\.00 of it held for your yes, not paid\) +100 % of 1\.00 USDC a month \(warned\)$/m,
    );
    // Nothing held: nothing said.
    expect(text).toMatch(/^ {4}writer +.+ +0\.00 of 5\.00 in 24 h \(0 %\)$/m);
  });

  it("says the day's total under the agents, as the overview does, and gives it in --json", async () => {
    const board = { ...dashboard('1.00', [row('reader', { sol: '1.00', base: '0.00' })]), spent24h: '4.00', held24h: '3.50' };
    const { dir } = await overviewCoffer(board);
    expect(await printed(dir)).toMatch(
      /^ {2}agents spent 4\.00 USDC in the last 24 h \(3\.50 of it held for your yes, not paid\)\n {2}nothing waits/m,
    );
    const out = new PassThrough();
    let json = '';
    out.on('data', (chunk: Buffer) => (json += chunk.toString()));
    expect(await ownerStatus({ dataDir: dir, json: true }, out)).toBe(0);
    expect(JSON.parse(json)).toMatchObject({ spent24h: '4.00', held24h: '3.50' });
    await coffer!.close();
    coffer = null;
    // Nothing held: nothing said of it; an older Coffer that gives no total: no line.
    const { dir: paid } = await overviewCoffer({ ...board, held24h: '0.00' });
    expect(await printed(paid)).toContain('  agents spent 4.00 USDC in the last 24 h\n');
    await coffer!.close();
    coffer = null;
    const { dir: older } = await overviewCoffer(dashboard('1.00', [row('reader', { sol: '1.00', base: '0.00' })]));
    expect(await printed(older)).not.toMatch(/agents spent/);
  });
});
