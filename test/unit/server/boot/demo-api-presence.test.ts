import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { announceDemoApi, demoApiUrl } from '../../../../server/boot/demo-api-presence.js';

let dataDir: string;
let other: ChildProcess | null = null;
const file = () => join(dataDir, 'demo-api', 'listening.json');

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-demo-presence-'));
  mkdirSync(join(dataDir, 'demo-api'));
});
afterEach(() => {
  other?.kill();
  other = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the demo API's listing of where it listens", () => {
  it('is this process once it announces, and gone when it withdraws', () => {
    const { withdraw, listed } = announceDemoApi(dataDir, 'http://127.0.0.1:7403');
    expect(listed).toBeNull();
    expect(demoApiUrl(dataDir)).toBe('http://127.0.0.1:7403');
    withdraw();
    expect(demoApiUrl(dataDir)).toBeNull();
  });

  it("stays the first demo's while it runs: a second leaves it, and its withdrawal does not take the first's away", () => {
    // Another live process announced first (demo-x402's seller, say).
    other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    writeFileSync(file(), `${JSON.stringify({ url: 'http://127.0.0.1:7500', pid: other.pid })}\n`);
    const second = announceDemoApi(dataDir, 'http://127.0.0.1:7403');
    expect(second.listed).toBe('http://127.0.0.1:7500');
    expect(demoApiUrl(dataDir)).toBe('http://127.0.0.1:7500');
    second.withdraw();
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({ url: 'http://127.0.0.1:7500', pid: other.pid });
  });

  it('takes over a listing whose process is gone (a demo killed without withdrawing)', () => {
    writeFileSync(file(), `${JSON.stringify({ url: 'http://127.0.0.1:7500', pid: 2 ** 22 + 1 })}\n`);
    const { listed } = announceDemoApi(dataDir, 'http://127.0.0.1:7403');
    expect(listed).toBeNull();
    expect(demoApiUrl(dataDir)).toBe('http://127.0.0.1:7403');
  });
});
