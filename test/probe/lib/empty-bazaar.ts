/**
 * A Bazaar facilitator of the probe's own, on this machine, whose discovery list is empty: with it the
 * probe can turn Bazaar discovery on and refresh it without Coffer reaching out of the machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startEmptyBazaar(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/discovery/resources') {
      res.writeHead(404).end();
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ x402Version: 2, items: [], pagination: { limit, offset, total: 0 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
