import { describe, expect, it } from 'vitest';
import type { Command } from '../../../../server/cli/command-line.js';
import { commandHelp, commandSynopsis } from '../../../../server/cli/help.js';
import * as agents from '../../../../server/cli/table/agents.js';
import * as backups from '../../../../server/cli/table/backups.js';
import * as engine from '../../../../server/cli/table/engine.js';
import * as linkedAgent from '../../../../server/cli/table/linked-agent.js';
import * as owner from '../../../../server/cli/table/owner.js';

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

describe("every command's usage lines, under a usage error", () => {
  it('name each option the command takes (an option line that does not open with "[" would be dropped)', () => {
    const tables = [engine, linkedAgent, agents, backups, owner];
    const commands = tables
      .flatMap((table) => Object.values(table))
      .filter((each): each is Command => typeof (each as Command)?.run === 'function');
    expect(commands.length).toBeGreaterThan(30);
    const unnamed = commands.flatMap((command) => {
      const synopsis = commandSynopsis(commands, command.name, '1.0.0');
      expect(synopsis, command.name).toMatch(new RegExp(`^usage:\\n {2}coffer ${command.name}`));
      // No line of what it does: each kept line is a form's, or its options carried on.
      for (const line of synopsis.split('\n').slice(1, -2)) expect(line, command.name).toMatch(/^( {2}coffer | +\[)/);
      return (command.options ?? []).filter((option) => !synopsis.includes(`--${option}`)).map((option) => `${command.name} --${option}`);
    });
    // Taken, never shown: the MCP bridge's flag for a host that sandboxes it.
    expect(unnamed).toEqual(['mcp --no-sandbox']);
  });
});
