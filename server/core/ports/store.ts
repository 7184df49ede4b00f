/**
 * The storage port. Synchronous on purpose: a reservation (policy checks + pending row) must run inside
 * one serialised write transaction with no await in between, so concurrent payments cannot overspend.
 * Times are epoch milliseconds; money is bigint micro-USDC.
 *
 * One interface per aggregate lives in ./store/; `Store` is all of them over one database, plus the
 * transaction that spans them. This is the one place the core imports storage types from.
 */
import type { AgentStore } from './store/agents.js';
import type { ApiKeyStore } from './store/api-keys.js';
import type { ApprovalStore } from './store/approvals.js';
import type { AuditStore } from './store/audit.js';
import type { LinkSessionStore } from './store/link-sessions.js';
import type { MetaStore } from './store/meta.js';
import type { NoticeStore } from './store/notices.js';
import type { OwnerStore } from './store/owners.js';
import type { RailWalletStore } from './store/rail-wallets.js';
import type { RefusalStore } from './store/refusals.js';
import type { RegistryStore } from './store/registry.js';
import type { SpendStore } from './store/spend.js';
import type { TaskStore } from './store/tasks.js';
import type { TransferStore } from './store/transfers.js';

export type { AgentRecord, AgentStatus, AgentStore, DeployKey } from './store/agents.js';
export type { ApiKeyStore, KeyRevocation, KeyScope, RevokedKey } from './store/api-keys.js';
export type { ApprovalKind, ApprovalRecord, ApprovalStatus, ApprovalStore, EndedApproval } from './store/approvals.js';
export type { AuditEntry, AuditStore } from './store/audit.js';
export type { LinkSessionRecord, LinkSessionStore } from './store/link-sessions.js';
export type { MetaStore } from './store/meta.js';
export type { NoticeStore } from './store/notices.js';
export type { OwnerRecord, OwnerStore } from './store/owners.js';
export type { OtherRail, RailWalletStore } from './store/rail-wallets.js';
export type { RefusalRecord, RefusalStore } from './store/refusals.js';
export type { ModelRecord, RegistryStore, SearchListing, ServiceRecord } from './store/registry.js';
export type { AgentSpendTotals, SpendStore } from './store/spend.js';
export type { GenerationTask, TaskStatus, TaskStore } from './store/tasks.js';
export type {
  AllocationRecord,
  CountedPayment,
  DepositRecord,
  PaymentRecord,
  RefundRecord,
  SentTransaction,
  TransferKind,
  TransferOf,
  TransferRecord,
  TransferStatus,
  TransferStore,
} from './store/transfers.js';

export interface Store
  extends
    MetaStore,
    OwnerStore,
    RailWalletStore,
    ApiKeyStore,
    AgentStore,
    TransferStore,
    SpendStore,
    RefusalStore,
    NoticeStore,
    TaskStore,
    ApprovalStore,
    LinkSessionStore,
    AuditStore,
    RegistryStore {
  /** Runs fn inside one serialised write transaction (BEGIN IMMEDIATE); fn must not await. */
  transaction<T>(fn: () => T): T;
  /**
   * The same, for a write the chain can make again: what it says of a transfer whose pending row
   * (with its signed transaction) is already on disk. Committed without waiting for the disk, so a
   * power cut may lose it (a process crash never does); the transfer is then pending again and is
   * settled from the chain at the next start, as any other. The log keeps commits in order, so a
   * power cut loses only the newest ones, never one from between: a later durable commit makes this
   * one durable too. Inside another transaction it is part of that one, and as durable.
   */
  chainDerivedTransaction<T>(fn: () => T): T;
}
