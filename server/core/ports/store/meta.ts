/** Port: the ledger's key/value settings (meta table). */
export interface MetaStore {
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
  deleteMeta(key: string): void;
}
