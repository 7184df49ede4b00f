import { describe, expect, it } from 'vitest';
import { checkBalance } from '../../../../../server/mcp/tools/this-agent.js';
import { balanceOutput } from '../../../../../server/mcp/tool-outputs.js';
import type { Balance } from '../../../../../server/wire/answers/agents.js';

const SOL = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const BASE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OWNER = 'CpHEYvqJTdZshCYHVcBJ2u1Ns8jPCGejioyso11hDJPD';

/** check_balance as an MCP host calls it, over an API that answers `balance`. */
async function checked(balance: Balance) {
  const ctx = { agentId: 'alpha', owner: OWNER, api: { balance: async () => balance } };
  if (!('answer' in checkBalance)) throw new Error('check_balance answers a value');
  const answer = await checkBalance.answer({}, { ctx } as never);
  expect(balanceOutput.parse(answer)).toEqual(answer);
  return answer as Record<string, unknown>;
}

const balance = (baseNetwork: string | null, base: string | null): Balance => ({
  agentId: 'alpha',
  walletAddress: SOL,
  balance: '1.00',
  wallets: { sol: SOL, base: BASE },
  balances: { sol: '1.00', base },
  available: { sol: '1.00', base },
  baseNetwork,
  preferredRail: null,
  currency: 'USDC',
  status: 'active',
});

describe('check_balance', () => {
  it("answers the agent's Base account and its balance there where the Base rail is open", async () => {
    expect(await checked(balance('base-sepolia', '2.50'))).toMatchObject({
      wallets: { sol: SOL, base: BASE },
      balances: { sol: '1.00', base: '2.50' },
      baseNetwork: 'base-sepolia',
      treasuryAddress: OWNER,
    });
  });

  it('offers no Base account where the rail is off: USDC sent to the one filed would reach no rail this Coffer reads', async () => {
    expect(await checked(balance(null, null))).toMatchObject({
      wallets: { sol: SOL, base: null },
      balances: { sol: '1.00', base: null },
      baseNetwork: null,
    });
  });
});
