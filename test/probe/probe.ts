/**
 * Coffer's outside probes: black-box checks against a real `coffer serve` child process (HTTP and MCP
 * stdio, loopback only, sim chain, file key store, temp data dirs), printing figures.
 *
 *   node server/cli/run-ts.js test/probe/probe.ts [--quick] [--seed N] [--allow-known] [--only a,b] [--verbose] [--keep-temp]
 *
 * Exits 1 when any safety figure is above zero (overspend, lost, doubled, ledger != chain, 5xx,
 * escalations, accepted tampered receipts, a dead server) or a probe could not run; with
 * --allow-known, the two issues known to be open (a replayed dashboard cookie, receipt timestamp /
 * paymentId edits) print without failing the run.
 */
import { randomInt } from 'node:crypto';
import { cleanupAll, installCleanupHandlers, keepTempDirs, livePids } from './lib/cleanup.js';
import { Rng } from './lib/rng.js';
import type { Probe, ProbeResult } from './lib/report.js';
import { paymentsVsPolicy } from './payments-vs-policy.js';
import { killRestart } from './kill-restart.js';
import { fuzz } from './fuzz.js';
import { authMatrix } from './auth-matrix.js';
import { receiptTamper } from './receipt-tamper.js';

interface Options {
  quick: boolean;
  seed: number;
  allowKnown: boolean;
  only: string[] | null;
  verbose: boolean;
  keepTemp: boolean;
}

const USAGE = 'usage: probe.ts [--quick] [--seed N] [--allow-known] [--only payments,kill,fuzz,auth,receipts] [--verbose] [--keep-temp]';

function parseArgs(argv: string[]): Options {
  const options: Options = {
    quick: false,
    seed: randomInt(1, 2 ** 31 - 1),
    allowKnown: false,
    only: null,
    verbose: false,
    keepTemp: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const next = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value\n${USAGE}`);
      return next;
    };
    const name = arg.split('=')[0];
    if (name === '--quick') options.quick = true;
    else if (name === '--allow-known') options.allowKnown = true;
    else if (name === '--verbose') options.verbose = true;
    else if (name === '--keep-temp') options.keepTemp = true;
    else if (name === '--seed') {
      const seed = Number(value());
      if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1)
        throw new Error(`--seed must be an integer from 0 to 4294967295\n${USAGE}`);
      options.seed = seed;
    } else if (name === '--only')
      options.only = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (name === '--help' || name === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  return options;
}

interface ProbeEntry {
  id: string;
  title: string;
  run: Probe;
  /** Time bound in seconds: [default, quick]. */
  bound: [number, number];
}

const PROBES: ProbeEntry[] = [
  // The bounds add up to 280 s by default and 63 s with --quick: the whole run stays under 5 min / about 1 min.
  { id: 'payments', title: 'randomized concurrent payments vs policy', run: paymentsVsPolicy, bound: [55, 10] },
  { id: 'kill', title: 'SIGKILL mid-burst and restart', run: killRestart, bound: [90, 15] },
  { id: 'fuzz', title: 'fuzz pass over every route', run: fuzz, bound: [65, 10] },
  { id: 'auth', title: 'auth matrix, HTTP and MCP', run: authMatrix, bound: [45, 20] },
  { id: 'receipts', title: 'receipt tamper pass', run: receiptTamper, bound: [25, 8] },
];

async function runProbe(entry: ProbeEntry, options: Options, rng: Rng): Promise<ProbeResult> {
  const boundSeconds = entry.bound[options.quick ? 1 : 0];
  const started = Date.now();
  // New work stops at 70 % of the bound, leaving the rest for the checks and the teardown.
  const softDeadline = started + boundSeconds * 700;
  const log = options.verbose ? (message: string) => console.error(`  [${entry.id}] ${message}`) : () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const hardBound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`time bound of ${boundSeconds} s exceeded: stopped`)), boundSeconds * 1000);
  });
  try {
    const result = await Promise.race([entry.run({ rng, quick: options.quick, softDeadline, log }), hardBound]);
    return { name: entry.id, ...result, durationMs: Date.now() - started };
  } catch (error) {
    // A stuck or crashed probe: its children go now, so the next probe starts clean.
    for (const pid of livePids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    return {
      name: entry.id,
      line: `${entry.id}: could not finish`,
      details: [],
      findings: [],
      figures: [],
      error: (error as Error).stack ?? String(error),
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  installCleanupHandlers();
  keepTempDirs(options.keepTemp);
  const selected = PROBES.filter((p) => options.only === null || options.only.includes(p.id));
  if (options.only !== null && selected.length !== options.only.length) {
    throw new Error(`unknown probe in --only (known: ${PROBES.map((p) => p.id).join(', ')})`);
  }
  const root = new Rng(options.seed);
  console.log(
    `coffer probe: seed ${options.seed} (repeat with --seed ${options.seed}), mode ${options.quick ? 'quick' : 'default'}${options.allowKnown ? ', --allow-known' : ''}`,
  );
  const started = Date.now();
  const results: ProbeResult[] = [];
  for (const entry of selected) {
    console.log(`\n== ${entry.id}: ${entry.title} (bound ${entry.bound[options.quick ? 1 : 0]} s)`);
    const result = await runProbe(entry, options, root.fork(entry.id));
    results.push(result);
    console.log(result.line);
    for (const detail of result.details) console.log(`  ${detail}`);
    if (result.error) console.log(`  ERROR: ${result.error}`);
    console.log(`  (${(result.durationMs / 1000).toFixed(1)} s)`);
  }
  const totalMs = Date.now() - started;

  // The verdict: safety figures above zero, unless known and allowed; probes that could not run.
  const failing: string[] = [];
  const excused: string[] = [];
  for (const result of results) {
    if (result.error) failing.push(`${result.name}: ${result.error.split('\n')[0]}`);
    for (const figure of result.figures) {
      if (!figure.safety || figure.value === 0) continue;
      if (figure.known && options.allowKnown) excused.push(`${result.name}: ${figure.name} ${figure.value} (known, --allow-known)`);
      else
        failing.push(`${result.name}: ${figure.name} ${figure.value}${figure.known ? ' (known issue; --allow-known to let it pass)' : ''}`);
    }
  }
  console.log('\n== summary');
  console.log(`seed ${options.seed}, mode ${options.quick ? 'quick' : 'default'}, ${(totalMs / 1000).toFixed(1)} s`);
  for (const result of results) console.log(`${result.line}   [${(result.durationMs / 1000).toFixed(1)} s]`);
  const findings = results.flatMap((r) => r.findings);
  if (findings.length > 0) {
    console.log('findings:');
    for (const finding of findings.slice(0, 60)) console.log(`  - ${finding}`);
    if (findings.length > 60) console.log(`  ... ${findings.length - 60} more`);
  }
  for (const line of excused) console.log(`known: ${line}`);
  for (const line of failing) console.log(`FAIL: ${line}`);
  console.log(failing.length === 0 ? 'result: pass' : `result: FAIL (${failing.length})`);
  return failing.length === 0 ? 0 : 1;
}

main()
  .then((code) => {
    cleanupAll();
    process.exit(code);
  })
  .catch((error: unknown) => {
    console.error((error as Error).message ?? error);
    cleanupAll();
    process.exit(2);
  });
