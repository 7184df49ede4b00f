import { describe, expect, it } from 'vitest';
import { loopbackRefusal } from '../../../../server/http/guards.js';

/** The one Host and Origin rule every door on this machine asks (the API, the embedded RPC's socket, the demos). */
describe('loopbackRefusal', () => {
  const PORT = 7402;
  const asked = (rawHeaders: string[]) => {
    const headers: Record<string, string> = {};
    // As Node reads them: the first of a repeated Host is kept.
    for (let at = 0; at < rawHeaders.length; at += 2) headers[rawHeaders[at]!.toLowerCase()] ??= rawHeaders[at + 1]!;
    return loopbackRefusal({ headers, rawHeaders }, PORT);
  };

  it("takes this server's own host, by any of its loopback names", () => {
    for (const host of [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`]) expect(asked(['Host', host])).toBeNull();
  });

  it('refuses two Host headers even where the first is its own: the request is not read as one of them', () => {
    const refusal = asked(['Host', `127.0.0.1:${PORT}`, 'host', 'evil.example']);
    expect({ code: refusal?.code, message: refusal?.message }).toEqual({ code: 'bad_host', message: 'a request names one Host, not two' });
  });

  it('refuses no Host, a foreign one, and a foreign Origin', () => {
    expect(asked([])?.code).toBe('bad_host');
    expect(asked(['Host', `evil.example:${PORT}`])?.code).toBe('bad_host');
    expect(asked(['Host', `127.0.0.1:${PORT}`, 'Origin', 'http://evil.example'])?.code).toBe('bad_origin');
  });
});
