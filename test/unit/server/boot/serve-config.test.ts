import { homedir } from 'node:os';
import { join, resolve, isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT, resolveServeConfig } from '../../../../server/boot/serve-config.js';

const ENV_HOME = resolve('/tmp/coffer-env-home');
const FLAG_HOME = resolve('/tmp/coffer-flag-home');

const fullEnv = {
  COFFER_HOME: ENV_HOME,
  COFFER_PORT: '9100',
  COFFER_NETWORK: 'devnet',
} as NodeJS.ProcessEnv;

describe('resolveServeConfig defaults', () => {
  it("uses ~/.coffer, port 7402, the data dir's own network (none asked for) and the automatic key store", () => {
    expect(DEFAULT_PORT).toBe(7402);
    expect(resolveServeConfig({}, {})).toEqual({
      dataDir: join(homedir(), '.coffer'),
      port: 7402,
      network: undefined,
      keyStore: 'auto',
      usdcMint: undefined,
      imageProviderUrl: undefined,
      imageProviderKey: undefined,
    });
  });

  it('carries every COFFER_* setting, so serve and the desktop app start the same engine', () => {
    const env = {
      COFFER_USDC_MINT: 'MintAddr',
      COFFER_IMAGE_PROVIDER_URL: 'http://127.0.0.1:9/v1',
      COFFER_IMAGE_PROVIDER_KEY: 'sk-x',
      COFFER_KEYSTORE: 'file',
    };
    expect(resolveServeConfig({}, env)).toMatchObject({
      usdcMint: 'MintAddr',
      imageProviderUrl: 'http://127.0.0.1:9/v1',
      imageProviderKey: 'sk-x',
      keyStore: 'file',
    });
  });

  it('ignores unrelated variables', () => {
    expect(resolveServeConfig({}, { HOME: '/nowhere', PORT: '1', NETWORK: 'mainnet' })).toEqual(resolveServeConfig({}, {}));
  });
});

describe('resolveServeConfig precedence', () => {
  it('variables win over defaults', () => {
    expect(resolveServeConfig({}, fullEnv)).toMatchObject({
      dataDir: ENV_HOME,
      port: 9100,
      network: 'devnet',
      keyStore: 'auto',
    });
  });

  it('flags win over variables', () => {
    expect(resolveServeConfig({ 'data-dir': FLAG_HOME, port: '9200', network: 'mainnet' }, fullEnv)).toMatchObject({
      dataDir: FLAG_HOME,
      port: 9200,
      network: 'mainnet',
      keyStore: 'auto',
    });
  });

  it('each flag wins on its own, the rest still comes from variables', () => {
    expect(resolveServeConfig({ port: '9300' }, fullEnv)).toMatchObject({ dataDir: ENV_HOME, port: 9300, network: 'devnet' });
    expect(resolveServeConfig({ network: 'sim' }, fullEnv)).toMatchObject({ dataDir: ENV_HOME, port: 9100, network: 'sim' });
    expect(resolveServeConfig({ 'data-dir': FLAG_HOME }, fullEnv)).toMatchObject({
      dataDir: FLAG_HOME,
      port: 9100,
      network: 'devnet',
    });
  });

  it('flags win over defaults when no variable is set', () => {
    expect(resolveServeConfig({ 'data-dir': FLAG_HOME, port: '8000', network: 'https://rpc.example.com' }, {})).toMatchObject({
      dataDir: FLAG_HOME,
      port: 8000,
      network: 'https://rpc.example.com',
      keyStore: 'auto',
    });
  });

  it('each variable alone overrides only its own default', () => {
    expect(resolveServeConfig({}, { COFFER_PORT: '8123' })).toMatchObject({ port: 8123, network: undefined });
    expect(resolveServeConfig({}, { COFFER_NETWORK: 'mainnet' })).toMatchObject({ port: 7402, network: 'mainnet' });
    expect(resolveServeConfig({}, { COFFER_HOME: ENV_HOME })).toMatchObject({ dataDir: ENV_HOME, port: 7402 });
  });

  it('makes a relative data dir absolute', () => {
    const fromFlag = resolveServeConfig({ 'data-dir': 'relative/dir' }, {});
    expect(isAbsolute(fromFlag.dataDir)).toBe(true);
    expect(fromFlag.dataDir).toBe(resolve('relative/dir'));
    expect(resolveServeConfig({}, { COFFER_HOME: './home' }).dataDir).toBe(resolve('./home'));
  });

  it('passes the network text through for parseNetwork to judge', () => {
    expect(resolveServeConfig({ network: 'http://127.0.0.1:8899' }, {}).network).toBe('http://127.0.0.1:8899');
  });
});

describe('resolveServeConfig ports', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['7402', 7402],
    ['65535', 65535],
  ])('accepts port %j', (port, expected) => {
    expect(resolveServeConfig({ port }, {}).port).toBe(expected);
    expect(resolveServeConfig({}, { COFFER_PORT: port }).port).toBe(expected);
  });

  it.each(['65536', '99999', '-1', '1.5', 'abc', '80a', ' 80', '0x50', '1e3'])('rejects port %j from a flag or a variable', (port) => {
    expect(() => resolveServeConfig({ port }, {})).toThrow(/port/i);
    expect(() => resolveServeConfig({}, { COFFER_PORT: port })).toThrow(/port/i);
  });

  it('an empty --port is an error, an empty COFFER_PORT counts as unset', () => {
    expect(() => resolveServeConfig({ port: '' }, {})).toThrow(/port/i);
    expect(resolveServeConfig({}, { COFFER_PORT: '' }).port).toBe(7402);
  });

  it('a good flag port wins over a bad variable (the variable is never consulted)', () => {
    expect(resolveServeConfig({ port: '8080' }, { COFFER_PORT: 'nope' }).port).toBe(8080);
  });

  it('names where a bad port came from: the flag or COFFER_PORT', () => {
    expect(() => resolveServeConfig({ port: 'abc' }, {})).toThrow('--port must be a number from 0 to 65535 (got "abc")');
    expect(() => resolveServeConfig({}, { COFFER_PORT: 'abc' })).toThrow('COFFER_PORT must be a number from 0 to 65535 (got "abc")');
  });

  it('a bad flag port is not rescued by a good variable', () => {
    expect(() => resolveServeConfig({ port: 'nope' }, { COFFER_PORT: '8080' })).toThrow(/port/i);
  });
});

describe('resolveServeConfig COFFER_KEYSTORE', () => {
  it.each(['auto', 'keychain', 'file'] as const)('accepts %j', (keyStore) => {
    expect(resolveServeConfig({}, { COFFER_KEYSTORE: keyStore }).keyStore).toBe(keyStore);
  });

  it.each(['keyring', 'FILE', 'Auto', 'none', ' file'])('rejects %j', (keyStore) => {
    expect(() => resolveServeConfig({}, { COFFER_KEYSTORE: keyStore })).toThrow(/COFFER_KEYSTORE/);
  });

  it('an empty COFFER_KEYSTORE counts as unset (auto), and so does an empty COFFER_HOME', () => {
    expect(resolveServeConfig({}, { COFFER_KEYSTORE: '' }).keyStore).toBe('auto');
    expect(resolveServeConfig({}, { COFFER_HOME: '' }).dataDir).toMatch(/\.coffer$/);
  });
});
