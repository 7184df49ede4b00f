import type { FailedTransactionMetadata } from 'litesvm';

/**
 * A transaction error as Solana's JSON-RPC spells it: a bare name (`"BlockhashNotFound"`), or an
 * object such as `{"InstructionError": [1, {"Custom": 1}]}`. Clients (`@solana/kit` among them) decode
 * exactly this shape.
 */
export type RpcTransactionError = string | Record<string, unknown>;

type LiteSvmError = ReturnType<FailedTransactionMetadata['err']>;

/** LiteSVM's error enums, in their declaration order (litesvm's internal.d.ts). */
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];
const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

/** LiteSVM's failure as the JSON-RPC error shape. */
export function rpcTransactionError(err: LiteSvmError): RpcTransactionError {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? 'UnknownError';
  if ('err' in err && typeof err.err === 'function') {
    const inner = err.err();
    if (typeof inner === 'number') return { InstructionError: [err.index, INSTRUCTION_ERRORS[inner] ?? 'GenericError'] };
    if ('code' in inner) return { InstructionError: [err.index, { Custom: inner.code }] };
    return { InstructionError: [err.index, { BorshIoError: inner.toString() }] };
  }
  if ('accountIndex' in err) {
    const name = err.constructor.name.replace(/^TransactionError/, '');
    return { [name]: { account_index: err.accountIndex } };
  }
  if ('index' in err) return { DuplicateInstruction: err.index };
  return 'UnknownError';
}
