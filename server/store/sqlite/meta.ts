/** SQLite adapter of the meta port: key/value settings. */
import type { MetaStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { optionalText } from './rows.js';

export function createMetaStore(db: SqliteDatabase): MetaStore {
  const stmts = {
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    deleteMeta: db.prepare('DELETE FROM meta WHERE key = ?'),
  };
  return {
    getMeta: (key) => optionalText(stmts.getMeta.get(key)),
    setMeta: (key, value) => void stmts.setMeta.run(key, value),
    deleteMeta: (key) => void stmts.deleteMeta.run(key),
  };
}
