import { isJsonObject, rawRequest, type Answer, type Api } from './lib/http.js';
import { allocate, deploy } from './lib/ledger.js';
import { Tally, type Probe } from './lib/report.js';
import { base58, randomAddress, type Rng } from './lib/rng.js';
import { removeDir, tempDir } from './lib/cleanup.js';
import { startDemoApi, startServe, type DemoApi, type Serve } from './lib/serve.js';
import { decodeReceipt, encodeJsonText, encodeReceipt, mutateBase58, sameReceipt, type ReceiptJson } from './lib/receipt.js';

/**
 * Probe 5: the receipt tamper pass. Pays the demo paid API (`coffer demo-api` on the probe's data
 * dir) for valid, unused receipts; for every receipt field makes edited variants, plus re-encodings
 * (whitespace, key order, escapes, duplicate keys, extra fields, non-canonical base64, prefixes),
 * presents each to the paywall as X-Payment and counts the ones accepted. A variant is always built
 * from a receipt that is still unused, and a receipt is retired as soon as anything was accepted
 * with it, so "already used" never hides a tamper. Controls: the untampered receipts are accepted.
 */

interface Paid {
  header: string;
  receipt: ReceiptJson;
  path: string;
}

interface Donors {
  other: ReceiptJson;
  otherPayer: ReceiptJson;
  unpaidNonce: string;
  treasury: string;
  otherWallet: string;
  otherServicePayTo: string;
}

interface Variant {
  field: string;
  label: string;
  make: (base: Paid, donors: Donors) => string | null;
}

const edit = (field: string, label: string, value: (r: ReceiptJson, d: Donors) => unknown): Variant => ({
  field,
  label,
  make: (base, donors) => encodeReceipt({ ...base.receipt, [field]: value(base.receipt, donors) }),
});
const text = (base: Paid) => Buffer.from(base.header.slice(3), 'base64').toString('utf8');
const b64 = (base: Paid) => base.header.slice(3);

function variants(rng: Rng): Variant[] {
  const hourLater = (r: ReceiptJson) => new Date(Date.parse(String(r.timestamp)) + 3_600_000).toISOString();
  return [
    edit('v', '2', () => 2),
    edit('v', '"1"', () => '1'),
    edit('v', '0', () => 0),
    edit('v', 'true', () => true),
    edit('network', 'devnet', () => 'devnet'),
    edit('network', 'SIM', () => 'SIM'),
    edit('network', 'mainnet', () => 'mainnet'),
    edit('network', '"sim "', () => 'sim '),
    edit('txSignature', "another receipt's", (_r, d) => d.other.txSignature),
    edit('txSignature', "another payer's", (_r, d) => d.otherPayer.txSignature),
    edit('txSignature', 'one character changed', (r) => mutateBase58(String(r.txSignature))),
    edit('txSignature', 'made up', () => base58(rng.bytes(64))),
    edit('amount', '0.02', () => '0.02'),
    edit('amount', '1.00', () => '1.00'),
    edit('amount', '0.001', () => '0.001'),
    edit('amount', '0.010 (same value)', (r) => `${String(r.amount)}0`),
    edit('amount', '0.010000 (same value)', (r) => String(r.amount).padEnd(8, '0')),
    edit('amount', '1000000000.00', () => '1000000000.00'),
    edit('currency', 'usdc', () => 'usdc'),
    edit('currency', 'USDT', () => 'USDT'),
    edit('currency', 'EURC', () => 'EURC'),
    edit('timestamp', 'an hour later', hourLater),
    edit('timestamp', '2000-01-01', () => '2000-01-01T00:00:00.000Z'),
    edit('timestamp', '2999-12-31', () => '2999-12-31T23:59:59.999Z'),
    edit('timestamp', "another receipt's", (_r, d) => d.other.timestamp),
    edit('timestamp', 'without milliseconds', (r) => String(r.timestamp).replace(/\.\d+Z$/, 'Z')),
    edit('recipient', "another agent's wallet", (_r, d) => d.otherWallet),
    edit('recipient', 'the treasury', (_r, d) => d.treasury),
    edit('recipient', "another registry service's", (_r, d) => d.otherServicePayTo),
    edit('recipient', 'one character changed', (r) => mutateBase58(String(r.recipient))),
    edit('payer', "another agent's wallet", (_r, d) => d.otherWallet),
    edit('payer', 'the treasury', (_r, d) => d.treasury),
    edit('payer', 'made up', () => randomAddress(rng)),
    edit('paymentId', 'pay_forged', () => 'pay_forged'),
    edit('paymentId', "another receipt's", (_r, d) => d.other.paymentId),
    edit('paymentId', '1000 characters', () => 'p'.repeat(1000)),
    edit('paymentId', 'empty', () => ''),
    edit('memo', 'an unpaid nonce', (_r, d) => d.unpaidNonce),
    edit('memo', "another receipt's", (_r, d) => d.other.memo),
    edit('memo', 'one character added', (r) => `${String(r.memo)}x`),
    edit('memo', 'empty', () => ''),
    edit('proof', 'one character changed', (r) => mutateBase58(String(r.proof))),
    edit('proof', "another receipt's", (_r, d) => d.other.proof),
    edit('proof', "another payer's", (_r, d) => d.otherPayer.proof),
    edit('proof', 'made up', () => base58(rng.bytes(64))),
    {
      field: 'proof',
      label: 'left out',
      make: (base) => encodeReceipt(Object.fromEntries(Object.entries(base.receipt).filter(([k]) => k !== 'proof'))),
    },
    // Re-encodings: the same or nearly the same receipt written as another header string.
    { field: 'encoding', label: 'pretty-printed JSON', make: (base) => encodeJsonText(JSON.stringify(base.receipt, null, 1)) },
    { field: 'encoding', label: 'a space after each colon', make: (base) => encodeJsonText(text(base).replace(/":/g, '": ')) },
    {
      field: 'encoding',
      label: 'keys in reverse order',
      make: (base) => encodeReceipt(Object.fromEntries(Object.entries(base.receipt).reverse())),
    },
    { field: 'encoding', label: 'a \\u escape in a value', make: (base) => encodeJsonText(text(base).replace('"USDC"', '"USD\\u0043"')) },
    { field: 'encoding', label: 'v written 1.0', make: (base) => encodeJsonText(text(base).replace('"v":1', '"v":1.0')) },
    {
      field: 'encoding',
      label: 'duplicate amount key (first 5.00)',
      make: (base) => encodeJsonText(text(base).replace('{', '{"amount":"5.00",')),
    },
    {
      field: 'encoding',
      label: 'duplicate payer key (first another wallet)',
      make: (base, d) => encodeJsonText(text(base).replace('{', `{"payer":"${d.otherWallet}",`)),
    },
    { field: 'encoding', label: 'an extra field', make: (base) => encodeReceipt({ ...base.receipt, extra: true }) },
    {
      field: 'encoding',
      label: 'a __proto__ field',
      make: (base) => encodeJsonText(text(base).replace('{', '{"__proto__":{"amount":"5.00"},')),
    },
    { field: 'encoding', label: 'whitespace around the JSON', make: (base) => encodeJsonText(` ${text(base)}\n`) },
    { field: 'encoding', label: 'a byte-order mark', make: (base) => encodeJsonText(`\ufeff${text(base)}`) },
    {
      field: 'encoding',
      label: 'base64url alphabet',
      make: (base) => (/[+/]/.test(b64(base)) ? `v1.${b64(base).replace(/\+/g, '-').replace(/\//g, '_')}` : null),
    },
    {
      field: 'encoding',
      label: 'base64 without padding',
      make: (base) => (b64(base).endsWith('=') ? `v1.${b64(base).replace(/=+$/, '')}` : null),
    },
    {
      field: 'encoding',
      label: 'non-canonical base64 (padding bits set)',
      make: (base) => {
        const body = b64(base);
        const pad = /=+$/.exec(body)?.[0].length ?? 0;
        if (pad === 0) return null;
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
        const at = body.length - pad - 1;
        const index = alphabet.indexOf(body[at]!);
        return `v1.${body.slice(0, at)}${alphabet[index ^ 1]}${body.slice(at + 1)}`;
      },
    },
    { field: 'encoding', label: 'a space inside the base64', make: (base) => `v1.${b64(base).slice(0, 20)} ${b64(base).slice(20)}` },
    { field: 'encoding', label: 'prefix V1.', make: (base) => `V1.${b64(base)}` },
    { field: 'encoding', label: 'prefix v1..', make: (base) => `v1..${b64(base)}` },
    { field: 'encoding', label: 'trailing garbage', make: (base) => `${base.header}.x` },
    { field: 'encoding', label: 'two receipts in one header', make: (base, d) => `${base.header}, ${encodeReceipt(d.other)}` },
  ];
}

async function present(demo: DemoApi, path: string, header: string | string[]): Promise<Answer> {
  return rawRequest(demo.url, { method: 'GET', path, headers: { 'x-payment': header }, timeoutMs: 15_000 });
}

export const receiptTamper: Probe = async (ctx) => {
  const { rng } = ctx;
  const dir = tempDir('receipts');
  let serve: Serve | undefined;
  let demo: DemoApi | undefined;
  const findings: string[] = [];
  try {
    serve = await startServe(dir);
    demo = await startDemoApi(dir);
    const api: Api = serve.api;
    const payer = await deploy(api, 'payer', { dailyBudget: '100.00', maxPerPayment: '1.00' });
    const payer2 = await deploy(api, 'payer-two', { dailyBudget: '100.00', maxPerPayment: '1.00' });
    await allocate(api, 'payer', '5.00');
    await allocate(api, 'payer-two', '1.00');
    const webSearch = await api.ok<{ payTo: string }>('GET', '/v1/services/web-search', { key: null, owner: null });
    const demoApi = demo;

    let paidCount = 0;
    const terms = async (path: string) => {
      const answer = await rawRequest(demoApi.url, { method: 'GET', path });
      if (answer.status !== 402 || !isJsonObject(answer.json) || typeof answer.json.nonce !== 'string') {
        throw new Error(`the demo API answered ${answer.status} without terms: ${answer.text.slice(0, 200)}`);
      }
      return answer.json.nonce;
    };
    const fresh = async (agent = payer, path = `/weather?city=Probe${rng.int(0, 1e6)}`): Promise<Paid> => {
      const nonce = await terms(path);
      const paid = await api.ok<{ xPaymentHeader: string }>('POST', `/v1/agents/${agent.agentId}/pay`, {
        key: agent.apiKey,
        body: { service: 'demo-weather', amount: '0.01', currency: 'USDC', nonce, description: 'receipt probe' },
      });
      paidCount += 1;
      return { header: paid.xPaymentHeader, receipt: decodeReceipt(paid.xPaymentHeader), path };
    };

    const donors: Donors = {
      other: (await fresh()).receipt,
      otherPayer: (await fresh(payer2)).receipt,
      unpaidNonce: await terms('/weather'),
      treasury: serve.owner,
      otherWallet: payer2.walletAddress,
      otherServicePayTo: webSearch.payTo,
    };

    // Control: an untampered receipt is accepted (else the pass proves nothing).
    let controlsOk = 0;
    let controls = 0;
    const control = async (paid: Paid) => {
      controls += 1;
      const answer = await present(demoApi, paid.path, paid.header);
      if (answer.status === 200) controlsOk += 1;
      else findings.push(`receipts: an untampered receipt was refused: ${answer.status} ${answer.text.slice(0, 160)}`);
    };
    await control(await fresh());

    const list = variants(rng);
    const accepted = new Tally();
    const knownAccepted = new Tally();
    const reencoded = new Tally();
    const codes = new Tally();
    let tried = 0;
    let current = await fresh();
    for (const variant of list) {
      const header = variant.make(current, donors);
      if (header === null) continue;
      tried += 1;
      const answer = await present(demoApi, current.path, header);
      if (answer.status >= 200 && answer.status < 300) {
        let meaning = '';
        try {
          meaning = sameReceipt(decodeReceipt(header), current.receipt) ? ' (same meaning)' : '';
        } catch {
          meaning = '';
        }
        const label = `${variant.field}${variant.field === 'encoding' ? `: ${variant.label}` : ''}`;
        if (variant.field === 'timestamp' || variant.field === 'paymentId') knownAccepted.add(label);
        else if (variant.field === 'encoding') reencoded.add(label);
        else accepted.add(label);
        findings.push(
          `receipts: accepted with ${variant.field} edited (${variant.label})${meaning}: GET ${current.path} with X-Payment: <a fresh receipt, ${variant.field} ${variant.label}>`,
        );
        // That receipt is spent now: the next variant gets a fresh one.
        current = await fresh();
      } else {
        codes.add(isJsonObject(answer.json) ? String(answer.json.code) : `${answer.status} (not JSON)`);
        if (answer.status >= 500)
          findings.push(`receipts: ${variant.field} ${variant.label} answered ${answer.status}: ${answer.text.slice(0, 120)}`);
      }
    }
    // The last fresh receipt was only ever refused: it must still be good.
    const crossRoute = await present(demoApi, `/quote?symbol=SOL`, current.header);
    tried += 1;
    if (crossRoute.status >= 200 && crossRoute.status < 300) {
      accepted.add('route');
      findings.push('receipts: a /weather receipt was accepted on /quote');
      current = await fresh();
    } else codes.add(isJsonObject(crossRoute.json) ? String(crossRoute.json.code) : `${crossRoute.status}`);
    const dup = await present(demoApi, current.path, [current.header, current.header]);
    tried += 1;
    if (dup.status >= 200 && dup.status < 300) {
      findings.push('receipts: X-Payment sent twice (joined by the HTTP layer) was accepted');
      accepted.add('header: sent twice');
      current = await fresh();
    } else codes.add(isJsonObject(dup.json) ? String(dup.json.code) : `${dup.status}`);
    await control(current);
    // A receipt already accepted stays refused.
    const replay = await present(demoApi, current.path, current.header);
    tried += 1;
    if (replay.status >= 200 && replay.status < 300) {
      accepted.add('replay');
      findings.push('receipts: the same receipt was accepted twice');
    }

    const total = accepted.total + knownAccepted.total + reencoded.total;
    const fields = [accepted, knownAccepted, reencoded]
      .filter((t) => t.total > 0)
      .map((t) => t.toString(20))
      .join(', ');
    const line = `receipts: ${tried} tampered variants, accepted: ${total} (fields: ${fields || 'none'})`;
    const details = [
      `receipts detail: controls accepted ${controlsOk}/${controls}; ${paidCount} receipts paid; refusal codes ${codes.toString(14)}`,
      `receipts detail: accepted: field edits ${accepted.total}, timestamp/paymentId edits (known issue) ${knownAccepted.total}, re-encodings of the same receipt (other bytes, one header string per receipt broken) ${reencoded.total}`,
    ];
    return {
      line,
      details,
      findings,
      figures: [
        { name: 'accepted tampered receipts', value: accepted.total, safety: true },
        { name: 'accepted re-encoded receipts', value: reencoded.total, safety: true },
        { name: 'accepted tampered receipts (timestamp, paymentId)', value: knownAccepted.total, safety: true, known: true },
      ],
      ...(controlsOk < controls
        ? { error: `only ${controlsOk}/${controls} untampered receipts were accepted: the pass proves little` }
        : {}),
    };
  } finally {
    await demo?.stop();
    await serve?.stop();
    removeDir(dir);
  }
};
