/** What every SQLite adapter shares: typed values read out of rows, and mapped rows read out of statements. */
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../sqlite-driver.js';

export type Row = Record<string, unknown>;

export const text = (value: unknown): string => String(value);
export const optionalText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
export const optionalBigint = (value: unknown): bigint | null => (value === null || value === undefined ? null : BigInt(value as string));
export const optionalNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** Prepares a statement whose integers are read as BigInt: money never passes through a float. */
export const bigintStatement = (db: SqliteDatabase, sql: string) => db.prepare(sql).safeIntegers(true);

/** The row a statement answers, mapped; null when there is none. */
export function oneRow<T>(statement: Database.Statement, map: (row: Row) => T, ...params: unknown[]): T | null {
  const row = statement.get(...params) as Row | undefined;
  return row ? map(row) : null;
}

/** Every row a statement answers, mapped. */
export function allRows<T>(statement: Database.Statement, map: (row: Row) => T, ...params: unknown[]): T[] {
  return (statement.all(...params) as Row[]).map(map);
}
