import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/', '**/dist/', 'coverage/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The sandboxed preload must be CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The layering (docs/ARCHITECTURE.md): the engine's rules import no door (HTTP, MCP, CLI, tray)
    // and no adapter (SQLite, the chain, the keychain, x402, providers): only its own ports.
    files: ['server/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['express', 'better-sqlite3', '@napi-rs/keyring', 'electron', 'litesvm', 'node:fs', 'node:http', 'node:child_process'].map(
            (name) => ({
              name,
              message: 'server/core talks to the world only through its ports (server/core/ports)',
            }),
          ),
          patterns: [
            {
              regex: '^(\\.\\./)+(http|store|chain|keys|x402|providers|mcp|cli|boot|client|linked-agent|demo-api)(/|$)',
              message: 'server/core imports no door or adapter: add a port in server/core/ports',
            },
            {
              group: ['@modelcontextprotocol/*', '@x402/*', '@solana-program/*'],
              message: 'server/core talks to the world only through its ports (server/core/ports)',
            },
          ],
        },
      ],
    },
  },
  {
    // The /v1 client speaks only the wire (server/wire): nothing of the engine, not even its types, so
    // the dashboard and an agent's code that use it see what the server sends and no more.
    // no-restricted-imports covers `import type` and `export ... from` as well.
    files: ['server/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+core(/|$)',
              message: 'the /v1 client imports nothing of server/core: its answer types are server/wire/answers',
            },
          ],
        },
      ],
    },
  },
  {
    // The dashboard is a client of /v1: of the server it imports only the wire format and the /v1 client.
    files: ['renderer/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+server/(?!wire/|client/)',
              message: 'the dashboard reaches the server only over /v1; import only server/wire or server/client',
            },
          ],
        },
      ],
    },
  },
  {
    // The MCP bridge is a door of its own: it reaches Coffer through server/client, never through the CLI.
    files: ['server/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(cli|http|store)(/|$)', message: 'the MCP bridge is a /v1 client: use server/client' }] },
      ],
    },
  },
  {
    // TypeScript already checks names (DOM in the renderer, Node on the server).
    files: ['**/*.ts', '**/*.tsx'],
    rules: { 'no-undef': 'off' },
  },
);
