import { describe, expect, it } from 'vitest';
import { configArgument, isMcpLaunch, MCP_FLAG } from '../../../electron/mcp-mode.js';

describe("the app's executable started as the MCP bridge", () => {
  it('is the flag anywhere among Chromium switches, or the launch an earlier version handed out; nothing else', () => {
    expect(isMcpLaunch(['/opt/Coffer/coffer', MCP_FLAG])).toBe(true);
    expect(isMcpLaunch(['/opt/Coffer/coffer', '--no-sandbox', MCP_FLAG])).toBe(true);
    expect(isMcpLaunch(['electron', '/src/dist/app/electron/main.js', MCP_FLAG])).toBe(true);
    expect(isMcpLaunch(['Coffer.exe', 'C:\\Users\\ada\\.coffer\\mcp\\coffer-mcp.mjs', 'mcp'])).toBe(true);
    expect(isMcpLaunch(['/opt/Coffer/coffer'])).toBe(false);
    expect(isMcpLaunch(['/opt/Coffer/coffer', '--hidden'])).toBe(false);
    expect(isMcpLaunch(['/opt/Coffer/coffer', 'coffer-mcp.mjs'])).toBe(false);
  });

  it('reads --config FILE and --config=FILE, and ignores the rest', () => {
    expect(configArgument(['coffer', MCP_FLAG, '--config', '/home/ada/agent.json'])).toBe('/home/ada/agent.json');
    expect(configArgument(['coffer', '--no-sandbox', MCP_FLAG, '--config=/a.json'])).toBe('/a.json');
    expect(configArgument(['coffer', MCP_FLAG])).toBeNull();
  });
});
