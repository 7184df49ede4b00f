import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * Which better-sqlite3 opens Coffer's SQLite files, chosen once by the runtime's Node-API version.
 *
 * - Node-API 10 (Node 22.14 and newer, Node 24, Electron 41): better-sqlite3 13, `better-sqlite3-napi`
 *   in package.json. It is built on Node-API and prebuilt inside its package: one binary for Node and
 *   Electron, nothing compiled. Version 12 must not run here: it wraps connections and statements in
 *   node::ObjectWrap, whose cleanup hooks since Node 24.19 abort the whole process when the garbage
 *   collector frees one (nodejs/node#65446; seen here as `Assertion failed: (env) != nullptr` in
 *   coffer serve under Node 24.21).
 * - Older runtimes (Node 20, whose Node-API 9 cannot load version 13): better-sqlite3 12, built for
 *   this Node at install, or for Electron's ABI by the desktop launcher (COFFER_SQLITE_BINDING).
 */
const NODE_API_BUILD = Number(process.versions.napi) >= 10;
const require = createRequire(import.meta.url);

/** The resolved entry of the chosen module: the checkpoint worker loads the same one. */
export const SQLITE_MODULE = require.resolve(NODE_API_BUILD ? 'better-sqlite3-napi' : 'better-sqlite3');

const Driver = require(SQLITE_MODULE) as typeof BetterSqlite3;

/** Version 12's native build named by the desktop launcher, when that is the module in use. */
export const sqliteNativeBinding = (): string | undefined => (NODE_API_BUILD ? undefined : process.env.COFFER_SQLITE_BINDING || undefined);

/** A connection to a SQLite file (or ':memory:') through the chosen module. */
export function openConnection(file: string, options: BetterSqlite3.Options = {}): SqliteDatabase {
  const nativeBinding = sqliteNativeBinding();
  return new Driver(file, nativeBinding ? { ...options, nativeBinding } : options);
}
