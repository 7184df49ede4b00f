import { it } from 'vitest';
import { request } from 'node:http';
import { startCoffer } from '../helpers/coffer.js';

function raw(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string) {
  return new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body); else req.end();
  });
}

it('probe', async () => {
  const t = await startCoffer();
  const port = t.server.port;
  const show = (label: string, r: unknown) => console.log(label, JSON.stringify(r).slice(0, 400));
  show('pct', await raw(port, 'GET', t.withOwner('/v1/agents/%E0%A4%A/balance'), { authorization: `Bearer ${t.ownerKey}` }));
  show('pct2', await raw(port, 'GET', '/v1/%zz'));
  show('bigq', await raw(port, 'GET', '/v1/health?x=' + 'a'.repeat(8000)));
  try { show('hugeq', await raw(port, 'GET', '/v1/health?x=' + 'a'.repeat(100000))); } catch (e) { console.log('hugeq err', e); }
  show('413', await t.api('POST', t.withOwner('/v1/agents/deploy'), { rawBody: JSON.stringify({ agentId: 'x', pad: 'a'.repeat(70000) }) }));
  show('413raw', await raw(port, 'POST', t.withOwner('/v1/agents/deploy'), { 'content-type': 'application/json' }, JSON.stringify({ agentId: 'x', pad: 'a'.repeat(70000) })));
  show('rand', await raw(port, 'POST', t.withOwner('/v1/agents/deploy'), { 'content-type': 'application/octet-stream' }, Buffer.from(Array.from({ length: 300 }, () => Math.floor(Math.random() * 256)))));
  show('charset', await raw(port, 'POST', t.withOwner('/v1/agents/deploy'), { 'content-type': 'application/json; charset=klingon' }, '{}'));
  show('gzip', await raw(port, 'POST', t.withOwner('/v1/agents/deploy'), { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'notgzip'));
  show('arr', await t.api('POST', t.withOwner('/v1/agents/deploy'), { rawBody: '[1,2]' }));
  show('num', await t.api('POST', t.withOwner('/v1/agents/deploy'), { rawBody: '5' }));
  show('proto', await t.api('POST', t.withOwner('/v1/agents/deploy'), { rawBody: '{"__proto__":{"x":1},"agentId":"p","dailyBudget":"1","maxPerPayment":"1"}' }));
  show('owners', await t.api('GET', `/v1/dashboard?owner=${t.owner}&owner=${t.owner}`));
  show('ownerobj', await t.api('GET', `/v1/dashboard?owner[a]=1`));
  show('origin', await t.api('GET', '/v1/health', { headers: { origin: 'http://evil.example' } }));
  show('nohost', await raw(port, 'GET', '/v1/health', { host: '' }));
  show('login', await raw(port, 'GET', '/login?token=x'));
  show('agents-get-deploy', await t.api('GET', t.withOwner('/v1/agents/deploy')));
  show('emptyq', await t.api('GET', '/v1/services/search?q='));
  show('qarr', await t.api('GET', '/v1/services/search?q=a&q=b'));
  show('deploy-displayName-empty', await t.api('POST', t.withOwner('/v1/agents/deploy'), { body: { agentId: 'dn', dailyBudget: '1', maxPerPayment: '1', displayName: '' } }));
  show('models', await t.api('GET', '/v1/models'));
  await t.stop();
});
