/** What the serving thread and the EVM signing worker say to each other (evm-signing-thread.ts), and how either signs. */
import type { Address, Hex, SignableMessage, TransactionSerializable, TypedDataDefinition } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

export type SigningRequest =
  | { op: 'signMessage'; args: { message: SignableMessage } }
  | { op: 'signTypedData'; args: TypedDataDefinition }
  | { op: 'signTransaction'; args: TransactionSerializable };

export type ToSigningWorker = { kind: 'key'; key: Hex } | ({ kind: 'sign'; id: number; address: Address } & SigningRequest);

export type FromSigningWorker = { kind: 'signed'; id: number; signature: Hex } | { kind: 'failed'; id: number; message: string };

/** The signature a request asks of an account: made on the worker, or on the serving thread where it cannot run. */
export function signWith(account: PrivateKeyAccount, request: SigningRequest): Promise<Hex> {
  if (request.op === 'signMessage') return account.signMessage(request.args);
  if (request.op === 'signTypedData') return account.signTypedData(request.args);
  return account.signTransaction(request.args);
}
