/**
 * The layering of docs/ARCHITECTURE.md, checked by dependency-cruiser (`npm run lint`) on resolved
 * paths, type-only imports included: they are dropped from the JavaScript, not from the design. Each
 * rule says which arrow must never be drawn; the table in ARCHITECTURE.md says which may.
 */
const SERVER_OUTSIDE = (...allowed) => `^server/(?!${allowed.join('|')})[^/]+/`;

/** A forbidden arrow: from the files matching `from` to those matching `to`. */
const never = (name, comment, from, to, extra = {}) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, ...extra.from },
  to: { path: to, ...extra.to },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Each module has one place in the layering: a cycle, even of types, is where a rule stops having one home.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    never(
      'wire-stands-alone',
      'server/wire is what crosses /v1, shared by every side: it imports nothing of the server, the desktop or the dashboard.',
      '^server/wire/',
      `^(electron|renderer)/|${SERVER_OUTSIDE('wire/')}`,
    ),
    never(
      'wire-is-plain-data',
      'server/wire runs in the dashboard as on the server: of the libraries, only zod, bs58, temporal-polyfill, damerau-levenshtein and @noble/hashes (pure functions).',
      '^server/wire/',
      '(^|/)node_modules/',
      { to: { pathNot: '(^|/)node_modules/(zod|bs58|base-x|temporal-polyfill|damerau-levenshtein|@noble/hashes)/' } },
    ),
    never(
      'core-imports-no-adapter',
      'server/core decides and talks to the world only through its ports (server/core/ports): no door, no adapter.',
      '^server/core/',
      SERVER_OUTSIDE('core/', 'wire/'),
    ),
    never(
      'core-imports-no-transport',
      'server/core names no transport, file, database, keychain, chain library or x402 package: adapters do, behind its ports.',
      '^server/core/',
      [
        '(^|/)node_modules/(@types/)?(express|better-sqlite3|@napi-rs/keyring|electron|litesvm|ws|@modelcontextprotocol|@x402|@solana|@solana-program|viem)(/|$)',
        '^(fs|fs/promises|http|https|net|child_process)$',
      ].join('|'),
    ),
    never(
      'ports-import-no-rule',
      "A port says what the core needs, in the wire's and its own types: it imports none of the rules behind it.",
      '^server/core/ports/',
      '^server/core/(?!ports/)',
    ),
    never(
      'client-speaks-only-the-wire',
      'The /v1 client (and so the dashboard and coffer/client) sees what the server sends and no more: only server/wire.',
      '^server/client/',
      SERVER_OUTSIDE('client/', 'wire/'),
    ),
    never(
      'dashboard-reaches-the-server-over-v1',
      'The dashboard is a client of /v1: of the server it imports only the wire format and the /v1 client.',
      '^renderer/src/',
      SERVER_OUTSIDE('wire/', 'client/'),
    ),
    never(
      'mcp-is-a-v1-client',
      'The MCP bridge is a door of its own: it reaches Coffer through server/client, never the CLI, HTTP or the ledger.',
      '^server/mcp/',
      '^server/(cli|http|store|core|boot)/',
    ),
    never(
      'adapters-import-no-door',
      'The store, the chains, the keys and the providers serve the engine: no door (HTTP, MCP, CLI, tray) and no wiring.',
      '^server/(store|chain|keys|providers)/',
      '^(electron/|server/(mcp|cli|boot|client|exports|demo-api|demo-x402|backup|x402)/)',
    ),
    never(
      'http-serves-only-the-embedded-chain',
      "Of the HTTP door only its guard and error answers (on a request or a bare socket) are shared, with the embedded chain's own HTTP face.",
      '^server/chain/',
      '^server/http/(?!guards|errors|error-status|socket-answer)',
    ),
    never(
      'adapters-import-no-adapter',
      "An adapter imports ports, never another adapter's internals: the key vault answers the rail's signer port, the store owns the sign-in port.",
      '^server/(store|keys|providers)/',
      '^server/(chain|keys|store|providers|http)/',
      {
        from: { pathNot: '^server/store/migrations/' },
        to: { pathNot: '^server/$1/|^server/(chain/solana/signers|chain/evm/signers|store/sqlite-driver)\\.ts$' },
      },
    ),
    never(
      'migrations-see-only-the-embedded-chain-format',
      "A migration of the embedded chain's tables writes them in the chain's own stored form, and reads nothing else of it.",
      '^server/store/migrations/',
      '^server/(?!store/|wire/|core/ports/|chain/solana/sim/(transaction-codec|store|ledger)\\.ts$)',
    ),
    never(
      'chains-apart-from-the-keys-and-the-ledger',
      "A rail signs through its own signer port and keeps an embedded chain's state through the ledger's driver, never the vault or the store's internals.",
      '^server/chain/',
      '^server/(keys|store)/(?!sqlite-driver\\.ts$)',
    ),
    never(
      'a-rails-chains-apart',
      "A rail's embedded chain and its cluster adapter share only what the rail's folder holds: neither imports the other.",
      '^server/chain/([^/]+)/(sim|cluster)/',
      '^server/chain/$1/(sim|cluster)/',
      { to: { pathNot: '^server/chain/$1/$2/' } },
    ),
    never(
      'http-knows-no-adapter',
      "The HTTP door calls the engine: it opens no chain, key store or ledger itself (the store's sign-in port excepted).",
      '^server/http/',
      '^server/(chain|keys|providers|cli|mcp|boot|x402|backup)/|^server/store/(?!sign-in-store\\.ts$)',
    ),
    never(
      'linked-agent-stands-alone',
      "The linked agent's credentials are read by the CLI, MCP and coffer/client alike: server/linked-agent imports nothing else of the server.",
      '^server/linked-agent/',
      `^(electron|renderer)/|${SERVER_OUTSIDE('linked-agent/')}`,
    ),
    never(
      'desktop-reaches-the-engine-through-boot',
      'The desktop door opens Coffer as `coffer serve` does (server/boot) and reads the engine: no adapter, HTTP route or CLI of its own; the embedded chain only to learn whether LiteSVM loads.',
      '^electron/',
      '^server/(?!core/|boot/|wire/|package/|mcp/|linked-agent/|chain/solana/sim/load\\.ts$)',
    ),
    never(
      'cli-opens-no-desktop',
      'The CLI reaches the desktop app through the launch wiring in server/boot, never the Electron door.',
      '^server/cli/',
      '^electron/',
    ),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|renderer/dist)/' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
    },
  },
};
