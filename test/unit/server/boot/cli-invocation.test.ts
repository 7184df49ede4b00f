import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cofferInvocation, cofferMcpLaunch, shellCommand, shellWords } from '../../../../server/boot/cli-invocation.js';
import { packagePath } from '../../../../server/package/package-files.js';

describe('how coffer is run from a shell or an MCP host', () => {
  const bin = realpathSync(packagePath('server', 'cli', 'bin.js'));

  it('is plain `coffer` when the coffer on PATH is this package (npm link, a global install)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-path-'));
    try {
      symlinkSync(bin, join(dir, 'coffer'));
      const env = { PATH: `/nonexistent:${dir}` };
      expect(cofferInvocation(env)).toEqual({ command: 'coffer', args: [] });
      expect(cofferMcpLaunch(env)).toEqual({ command: 'coffer', args: ['mcp'] });
      expect(shellCommand(['status'], env)).toBe('coffer status');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is node with this package's bin.js by absolute path otherwise (another coffer on PATH is not this one)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-path-'));
    try {
      symlinkSync(process.execPath, join(dir, 'coffer'));
      const env = { PATH: dir };
      expect(cofferMcpLaunch(env)).toEqual({ command: process.execPath, args: [bin, 'mcp'] });
      expect(shellCommand(['pay', 'demo-weather', '0.01'], env)).toBe(`${process.execPath} ${bin} pay demo-weather 0.01`);
      expect(shellCommand(['pay', 'a service'], { PATH: '' })).toContain(process.platform === 'win32' ? '"a service"' : "'a service'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is node with bin.js, not `coffer`, when only npm's own node_modules/.bin puts it on PATH (npx coffer link in a checkout)", () => {
    // npx and npm run prepend node_modules/.bin folders to the PATH they run with; the user's shell
    // and an MCP host do not have them, so `coffer` printed from there is "command not found".
    const dir = mkdtempSync(join(tmpdir(), 'coffer-path-'));
    try {
      const npmBin = join(dir, 'node_modules', '.bin');
      mkdirSync(npmBin, { recursive: true });
      symlinkSync(bin, join(npmBin, 'coffer'));
      const env = { PATH: `${npmBin}:/usr/bin` };
      expect(cofferMcpLaunch(env)).toEqual({ command: process.execPath, args: [bin, 'mcp'] });
      expect(shellCommand(['status'], env)).toBe(`${process.execPath} ${bin} status`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('words as typed in a shell', () => {
  it('on macOS and Linux, in single quotes where needed: nothing in them expands ($, backticks, history !), a quote written out', () => {
    expect(shellWords(['fetch', 'http://x.test/a?b=1&c=2', '--data', '{"q":"$HOME `id` hi!there"}'], 'linux')).toBe(
      'fetch \'http://x.test/a?b=1&c=2\' --data \'{"q":"$HOME `id` hi!there"}\'',
    );
    expect(shellWords(["it's"], 'darwin')).toBe(`'it'\\''s'`);
    expect(shellWords(['plain/word.json', 'a=b:c@d'], 'linux')).toBe('plain/word.json a=b:c@d');
  });

  it('on Windows, in double quotes, as cmd and PowerShell read them', () => {
    expect(shellWords(['pay', 'a service'], 'win32')).toBe('pay "a service"');
  });
});
