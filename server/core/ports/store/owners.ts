/** Port: the owners (treasury wallets) Coffer holds ledgers for. */
export interface OwnerRecord {
  address: string;
  createdAt: number;
}

export interface OwnerStore {
  insertOwner(owner: OwnerRecord): void;
  getOwner(address: string): OwnerRecord | null;
  listOwners(): OwnerRecord[];
}
