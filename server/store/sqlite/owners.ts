/** SQLite adapter of the owners port. */
import type { OwnerRecord, OwnerStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, oneRow, text, type Row } from './rows.js';

const toOwner = (row: Row): OwnerRecord => ({ address: text(row.address), createdAt: Number(row.created_at) });

export function createOwnerStore(db: SqliteDatabase): OwnerStore {
  const stmts = {
    insertOwner: db.prepare('INSERT INTO owners (address, created_at) VALUES (?, ?)'),
    getOwner: db.prepare('SELECT address, created_at FROM owners WHERE address = ?'),
    listOwners: db.prepare('SELECT address, created_at FROM owners ORDER BY created_at'),
  };
  return {
    insertOwner: (owner) => void stmts.insertOwner.run(owner.address, owner.createdAt),
    getOwner: (address) => oneRow(stmts.getOwner, toOwner, address),
    listOwners: () => allRows(stmts.listOwners, toOwner),
  };
}
