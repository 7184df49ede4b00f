import { describe, expect, it } from 'vitest';
import type { Command } from '../../../../server/cli/command-line.js';
import { commandHelp, commandSynopsis } from '../../../../server/cli/help.js';

const run = async () => 0;
const COMMANDS: Command[] = [
  {
    name: 'backup',
    usage: `  coffer backup [--data-dir DIR] [--json]
                 where the backups stand
                 [not an option line: what it does, after the words]
  coffer backup schedule --folder DIR [--every HOURS]
                 [--keep N] [--data-dir DIR]
                 a backup file every HOURS`,
    run,
  },
  { name: 'mcp', usage: '  coffer mcp [--config FILE]\n                 the MCP tool server', run },
  { name: 'secret', run },
];

describe("a command's usage", () => {
  it('under a usage error: each form and the option lines that carry it on, not what it does, then where the rest is', () => {
    expect(commandSynopsis(COMMANDS, 'backup', '1.0.0')).toBe(
      `usage:
  coffer backup [--data-dir DIR] [--json]
  coffer backup schedule --folder DIR [--every HOURS]
                 [--keep N] [--data-dir DIR]

See "coffer help backup" for what it does and each option.`,
    );
    expect(commandSynopsis(COMMANDS, 'mcp', '1.0.0')).toBe(
      'usage:\n  coffer mcp [--config FILE]\n\nSee "coffer help mcp" for what it does and each option.',
    );
  });

  it('asked for: the whole of it; a command not listed, every listed one', () => {
    expect(commandHelp(COMMANDS, 'mcp', '1.0.0')).toBe(`usage:\n${COMMANDS[1]!.usage!}`);
    for (const helpOf of [commandHelp, commandSynopsis]) {
      const whole = helpOf(COMMANDS, 'secret', '1.0.0');
      expect(whole).toMatch(/^coffer 1\.0\.0: a personal treasury/);
      expect(whole).toContain('a backup file every HOURS');
    }
  });
});
