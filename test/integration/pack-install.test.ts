import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AsyncEntry, findCredentialsAsync } from '@napi-rs/keyring';
import { KEYCHAIN_SERVICE } from '../../server/keys/secret-backend.js';
import { json, spawnDemoApi, spawnServe } from '../helpers/serve-process.js';
import { ownerApi, readConnection } from '../helpers/owner-api.js';
import { packagePath } from '../../server/package/package-files.js';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';

/**
 * The package as a user installs it: `npm pack`, then `npm install -g` of the tarball into a
 * temporary prefix (from the registry, as on a machine with only Node), then the installed `coffer`.
 * Packed without its scripts: the build `npm test` made is what ships (a rebuild here would rewrite
 * dist/ under the other test files running beside this one).
 */
describe('npm pack, npm install -g, coffer', () => {
  const work = mkdtempSync(join(tmpdir(), 'coffer-pack-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const version = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

  /** The tarball, packed once for the tests below. */
  let packedTarball: string | null = null;
  const tarballOf = (): string => {
    if (packedTarball !== null) return packedTarball;
    const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: packagePath(), encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    packedTarball = join(work, `coffer-${version}.tgz`);
    expect(existsSync(packedTarball)).toBe(true);
    return packedTarball;
  };

  it('installs with only Node and runs from compiled JavaScript: --version, serve to health with its keys in the OS keychain, the dashboard, the MCP config naming the installed coffer', async () => {
    const tarball = tarballOf();

    const prefix = join(work, 'prefix');
    const installed = spawnSync('npm', ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund'], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    });
    expect(installed.status, installed.stderr).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'coffer');
    const bin = join(prefix, 'bin', 'coffer');

    // What shipped: the build, the dashboard, the catalog; no TypeScript, no dev dependencies.
    expect(existsSync(join(pkg, 'dist', 'app', 'server', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'renderer', 'dist', 'index.html'))).toBe(true);
    expect(readdirSync(join(pkg, 'server'), { recursive: true }).filter((file) => String(file).endsWith('.ts'))).toEqual([]);
    for (const dev of ['typescript', 'tsx', 'vite', 'electron', 'vitest', 'react'])
      expect(existsSync(join(pkg, 'node_modules', dev)), dev).toBe(false);

    const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe(version);

    // The keychain binding came from the registry with the package (it was in no node_modules before,
    // and nothing was compiled): the installed serve keeps its keys in the real Secret Service.
    const dataDir = join(work, 'data');
    const path = `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`;
    const serve = await spawnServe(dataDir, { PATH: path, COFFER_KEYSTORE: 'keychain' }, 'serve', bin);
    const stored = async () => (await findCredentialsAsync(KEYCHAIN_SERVICE)).map((c) => c.account);
    const wallets: string[] = [];
    try {
      await vi.waitFor(() => expect(serve.lines).toContain(`Data dir: ${dataDir}; keys in the OS keychain`), { timeout: 10_000 });
      expect((await fetch(`${serve.url}/v1/health`)).status).toBe(200);
      const page = await fetch(`${serve.url}/`);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toMatch(/<div id="root">/);
      const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
      wallets.push(owner);
      const deployed = await json(
        fetch(`${serve.url}/v1/agents/deploy?owner=${owner}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agentId: 'installed', dailyBudget: '1', maxPerPayment: '0.1' }),
        }),
      );
      // The installed `coffer` is on PATH: the MCP config names it, not a path into this install.
      expect(deployed.mcpConfig).toMatchObject({ command: 'coffer', args: ['mcp'] });
      wallets.push(deployed.agent.walletAddress);
      expect(await stored()).toEqual(
        expect.arrayContaining([`wallet:${owner}`, `owner-key:${owner}`, `wallet:${deployed.agent.walletAddress}`]),
      );
      expect(existsSync(join(dataDir, 'keys'))).toBe(false);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      // Leave the test keyring as it was: only this install's entries, which name its wallets.
      for (const account of await stored())
        if (wallets.some((wallet) => account.endsWith(wallet))) await new AsyncEntry(KEYCHAIN_SERVICE, account).deletePassword();
    }
  }, 600_000);

  it('coffer/client: a separate project installs the tarball and its code pays a paid API with payingFetch and reads Coffer with the /v1 client, typed', async () => {
    // The agent's own project: plain ESM, Coffer installed from the tarball (its native modules are
    // not built: the client imports none of them).
    const project = join(work, 'my-agent');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', private: true, type: 'module' }));
    const installed = spawnSync('npm', ['install', tarballOf(), '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    });
    expect(installed.status, installed.stderr).toBe(0);

    // A Coffer with an agent and its money, and the demo paid API beside it.
    const dataDir = join(work, 'client-data');
    const serve = await spawnServe(dataDir);
    let demo: Awaited<ReturnType<typeof spawnDemoApi>> | null = null;
    try {
      demo = await spawnDemoApi(dataDir);
      const demoUrl = demo.url;
      const { owner } = readConnection(dataDir);
      const post = (path: string, body: unknown) => ownerApi(dataDir).json('POST', path, body);
      const deployed = await post('/v1/agents/deploy', { agentId: 'coder', dailyBudget: '1', maxPerPayment: '0.05' });
      await post('/v1/agents/coder/allocate', { amount: '0.50' });
      const broke = await post('/v1/agents/deploy', { agentId: 'broke', dailyBudget: '1', maxPerPayment: '0.05' });

      // docs/X402.md's example (coffer/client), as the agent's code: TypeScript, checked against the shipped types, then run.
      // The agent as `coffer deploy --config FILE` writes it: linkedAgent reads that file as the CLI does.
      const agentConfig = join(project, 'coder.json');
      writeAgentConfig(agentConfig, {
        agentId: 'coder',
        walletAddress: deployed.agent.walletAddress as string,
        apiKey: deployed.apiKey as string,
        url: serve.url,
        owner,
        linkedAt: new Date().toISOString(),
      });
      const source = `import { payingFetch, keyClient, linkedAgent, PaymentError, type PayingAgent } from 'coffer/client';
import type { Wire, PaymentInstructions } from 'coffer/client';
// The types a refusal and an answer name, exported: a rail, and the terms of a 402 not paid.
type Terms = PaymentInstructions | undefined;

const agent = linkedAgent(process.env.AGENT_CONFIG!);
const { response, payment } = await payingFetch(process.env.PAID_URL!, {}, { agent });
const coffer = keyClient(agent.cofferUrl, { owner: agent.owner, key: agent.apiKey });
const { balances } = await coffer.balance(agent.agentId);
const broke: PayingAgent = { ...agent, agentId: 'broke', apiKey: process.env.BROKE_API_KEY! };
const refused = await payingFetch(process.env.PAID_URL!, {}, { agent: broke }).catch((error: unknown) =>
  error instanceof PaymentError ? \`\${error.code} \${error.details.cofferCode}\` : String(error),
);
const rail: Wire.Rail | undefined = payment?.rail;
console.log(JSON.stringify({ status: response.status, body: await response.json(), paid: payment?.amount, rail, balances, refused }));
`;
      writeFileSync(join(project, 'agent.ts'), source);
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            types: ['node'],
            typeRoots: [packagePath('node_modules', '@types')],
          },
          files: ['agent.ts'],
        }),
      );
      const checked = spawnSync(process.execPath, [packagePath('node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {
        encoding: 'utf8',
      });
      expect(checked.status, checked.stdout + checked.stderr).toBe(0);
      // Run as plain JavaScript: the same code with its types taken out.
      writeFileSync(
        join(project, 'agent.mjs'),
        source
          .replace(/^import type .*\n|^type Terms = .*\n/gm, '')
          .replace(': Wire.Rail | undefined', '')
          .replace(', type PayingAgent', '')
          .replace('const broke: PayingAgent =', 'const broke =')
          .replaceAll('!', '')
          .replace('(error: unknown)', '(error)'),
      );
      const ran = spawnSync(process.execPath, ['agent.mjs'], {
        cwd: project,
        encoding: 'utf8',
        env: {
          ...process.env,
          AGENT_CONFIG: agentConfig,
          BROKE_API_KEY: broke.apiKey,
          PAID_URL: `${demoUrl}/weather?city=Oslo`,
        },
      });
      expect(ran.status, ran.stderr).toBe(0);
      expect(JSON.parse(ran.stdout)).toMatchObject({
        status: 200,
        body: { city: 'Oslo' },
        paid: '0.01',
        rail: 'sol',
        balances: { sol: '0.49', base: '0.00' },
        refused: 'payment_refused insufficient_funds',
      });
    } finally {
      demo?.child.kill('SIGTERM');
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 600_000);
});
