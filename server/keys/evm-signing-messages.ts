/** What the serving thread and the EVM signing worker say to each other (evm-signing-thread.ts). */
import type { Address, Hex, SignableMessage, TransactionSerializable, TypedDataDefinition } from 'viem';

export type SigningRequest =
  | { op: 'signMessage'; args: { message: SignableMessage } }
  | { op: 'signTypedData'; args: TypedDataDefinition }
  | { op: 'signTransaction'; args: TransactionSerializable };

export type ToSigningWorker =
  { kind: 'key'; key: Hex } | ({ kind: 'sign'; id: number; address: Address } & SigningRequest) | { kind: 'close' };

export type FromSigningWorker =
  { kind: 'ready' } | { kind: 'signed'; id: number; signature: Hex } | { kind: 'failed'; id: number; message: string };
