import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../../../../server/cli/commands/restore.js';

/**
 * A data dir restored from the phrase on a custom cluster opens with the USDC and Base rail the
 * restore used: the start line printed after it named the network alone, and that `coffer serve`
 * came up on another USDC and no Base rail. The variables are named, never their values (an RPC
 * URL often carries an API key, and a shell would not take a quoted assignment).
 */
describe('the start line after a phrase restore', () => {
  it('names the network, and the variables that chose its USDC and Base rail', () => {
    expect(serveCommand({ dataDir: '/home/me/.coffer', network: 'devnet' }, 'linux')).toBe(
      'coffer serve --data-dir /home/me/.coffer --network devnet',
    );
    const custom = {
      dataDir: '/home/me/my coffer',
      network: 'http://127.0.0.1:8899',
      usdcMint: 'EDQCsMint',
      baseRpc: 'https://base.example/v2/SECRET-KEY?x=1&y=2',
      baseUsdc: '0x5098',
    };
    const line = serveCommand(custom, 'linux');
    expect(line).toBe(
      "coffer serve --data-dir '/home/me/my coffer' --network http://127.0.0.1:8899, with COFFER_USDC_MINT, COFFER_BASE_RPC and COFFER_BASE_USDC set as they are here",
    );
    expect(line).not.toContain('SECRET-KEY');
    expect(serveCommand({ ...custom, usdcMint: undefined, baseUsdc: '' }, 'win32')).toBe(
      'coffer serve --data-dir "/home/me/my coffer" --network http://127.0.0.1:8899, with COFFER_BASE_RPC set as it is here',
    );
  });
});
