import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { agentCommandLine } from '../../../../server/cli/agent-command-line.js';
import { defaultConfigPath } from '../../../../server/linked-agent/agent-config.js';
import { shellCommand } from '../../../../server/boot/cli-invocation.js';

/** `coffer` as this shell runs it: the word where the one on PATH is this package, else node and the script. */
const COFFER = shellCommand([]);

describe('the command that picks a held request up', () => {
  it('is typed as it runs: a URL with & or spaces quoted, the agent config named where it is not the default', () => {
    expect(
      agentCommandLine(['fetch', 'http://127.0.0.1:7403/weather?city=Madrid&units=c', '--approval', 'apr_1'], defaultConfigPath()),
    ).toBe(`${COFFER} fetch 'http://127.0.0.1:7403/weather?city=Madrid&units=c' --approval apr_1`);
    expect(agentCommandLine(['pay', '--approval', 'apr_1'], '/tmp/agent one.json')).toBe(
      `${COFFER} pay --approval apr_1 --config '/tmp/agent one.json'`,
    );
    expect(agentCommandLine(['fetch', 'http://x.test/a', '--data', '{"q":"$HOME"}', '--approval', 'apr_1'], defaultConfigPath())).toBe(
      `${COFFER} fetch http://x.test/a --data '{"q":"$HOME"}' --approval apr_1`,
    );
  });

  it('names a config chosen by COFFER_CONFIG, and a relative one from the root: the line is pasted into another shell, elsewhere', () => {
    vi.stubEnv('COFFER_CONFIG', '/tmp/agents/coder.json');
    try {
      expect(agentCommandLine(['pay', '--approval', 'apr_1'], defaultConfigPath())).toBe(
        `${COFFER} pay --approval apr_1 --config /tmp/agents/coder.json`,
      );
    } finally {
      vi.unstubAllEnvs();
    }
    expect(agentCommandLine(['pay', '--approval', 'apr_1'], 'agent.json')).toBe(
      `${COFFER} pay --approval apr_1 --config ${join(process.cwd(), 'agent.json')}`,
    );
  });
});
