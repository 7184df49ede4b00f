import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkedAgent } from '../../../../server/exports/linked-agent.js';
import { writeAgentConfig } from '../../../../server/linked-agent/agent-config.js';

const dir = mkdtempSync(join(tmpdir(), 'coffer-paying-agent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, agentId: string) => {
  const path = join(dir, name, 'agent.json');
  writeAgentConfig(path, {
    url: `http://127.0.0.1:7402`,
    owner: OWNER,
    agentId,
    apiKey: `cof_agt_${agentId}`,
    walletAddress: OWNER,
    linkedAt: '2026-11-29T00:00:00.000Z',
  });
  return path;
};
const OWNER = 'EQLvZ4VZ2j7uT9m4n8xRk3bC5yWq1sHdA6pFgJtN2oMe';
const variables = {
  COFFER_URL: 'http://127.0.0.1:7999',
  COFFER_OWNER: 'owner-2',
  COFFER_AGENT_ID: 'from-env',
  COFFER_API_KEY: 'cof_agt_env',
};

describe("coffer/client's linkedAgent: the agent an agent's code pays as, read as the coffer command reads it", () => {
  it('is the named config file, its url as the PayingAgent cofferUrl, whatever COFFER_* variables the shell holds', () => {
    const named = file('named', 'researcher');
    expect(linkedAgent(named, { ...variables })).toEqual({
      cofferUrl: 'http://127.0.0.1:7402',
      owner: OWNER,
      agentId: 'researcher',
      apiKey: 'cof_agt_researcher',
    });
  });

  it('unnamed: the four variables where all are set, else the linked config (COFFER_CONFIG here)', () => {
    expect(linkedAgent(undefined, { ...variables })).toEqual({
      cofferUrl: 'http://127.0.0.1:7999',
      owner: 'owner-2',
      agentId: 'from-env',
      apiKey: 'cof_agt_env',
    });
    const linked = file('linked', 'coder');
    expect(linkedAgent(undefined, { COFFER_CONFIG: linked }).agentId).toBe('coder');
  });

  it('says what to do where there is no agent, or the variables are cut short', () => {
    expect(() => linkedAgent(join(dir, 'none.json'))).toThrow(/no linked agent: .*none\.json does not exist \(run `coffer link` first/);
    expect(() => linkedAgent(undefined, { COFFER_URL: 'http://127.0.0.1:7999', COFFER_CONFIG: join(dir, 'none.json') })).toThrow(
      /COFFER_OWNER, COFFER_AGENT_ID and COFFER_API_KEY are not set, though COFFER_URL is/,
    );
  });
});
