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
 *   this Node at install. Never Electron: Electron 35 and later (package.json pins 41) have Node-API
 *   10, so nothing is built for Electron's ABI and the packaged app ships version 13 only.
 */
const NODE_API_BUILD = Number(process.versions.napi) >= 10;
const require = createRequire(import.meta.url);

/** The resolved entry of the chosen module: the checkpoint worker loads the same one. */
export const SQLITE_MODULE = require.resolve(NODE_API_BUILD ? 'better-sqlite3-napi' : 'better-sqlite3');

const Driver = require(SQLITE_MODULE) as typeof BetterSqlite3;

/** A connection to a SQLite file (or ':memory:') through the chosen module. */
export function openConnection(file: string, options: BetterSqlite3.Options = {}): SqliteDatabase {
  return new Driver(file, options);
}
