import type express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Serves an express app on a free loopback port. */
export async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Stops a server, its kept-alive connections included. */
export const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
