import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../../../../server/cli/commands/restore.js';

/**
 * A data dir restored from the phrase on a custom cluster opens with the USDC and Base rail the
 * restore used: the start line printed after it named the network alone, and that `coffer serve`
 * came up on another USDC and no Base rail.
 */
describe('the start line after a phrase restore', () => {
  it('names the network, and the variables that chose its USDC and Base rail, as a shell takes them', () => {
    expect(serveCommand({ dataDir: '/home/me/.coffer', network: 'devnet' }, 'linux')).toBe(
      'coffer serve --data-dir /home/me/.coffer --network devnet',
    );
    const custom = {
      dataDir: '/home/me/my coffer',
      network: 'http://127.0.0.1:8899',
      usdcMint: 'EDQCsMint',
      baseRpc: 'http://127.0.0.1:8545/?key=a&b',
      baseUsdc: '0x5098',
    };
    expect(serveCommand(custom, 'linux')).toBe(
      "COFFER_USDC_MINT=EDQCsMint 'COFFER_BASE_RPC=http://127.0.0.1:8545/?key=a&b' COFFER_BASE_USDC=0x5098 coffer serve --data-dir '/home/me/my coffer' --network http://127.0.0.1:8899",
    );
    expect(serveCommand({ ...custom, baseUsdc: undefined }, 'win32')).toBe(
      'coffer serve --data-dir "/home/me/my coffer" --network http://127.0.0.1:8899 (with COFFER_USDC_MINT=EDQCsMint "COFFER_BASE_RPC=http://127.0.0.1:8545/?key=a&b" set, as here)',
    );
  });
});
