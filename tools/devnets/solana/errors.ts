import {
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
  type FailedTransactionMetadata,
} from 'litesvm/dist/internal';

/** A JSON-RPC error as the Solana RPC sends it; kit turns `code` and `data` into its own SolanaError. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

// The codes of the Solana RPC (and JSON-RPC 2.0) that this devnet answers with.
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_PREFLIGHT_FAILURE = -32002;
export const RPC_SIGNATURE_VERIFICATION_FAILURE = -32003;
export const RPC_BLOCK_NOT_AVAILABLE = -32004;
export const RPC_SLOT_SKIPPED = -32007;
export const RPC_UNSUPPORTED_TRANSACTION_VERSION = -32015;
export const RPC_MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

export const invalidParams = (message: string): RpcError => new RpcError(RPC_INVALID_PARAMS, message);

/** The RPC's JSON form of a `TransactionError`: a variant name, or `{ Variant: fields }`. */
export type TransactionErrorJson = string | Record<string, unknown>;

// litesvm's napi enums number their variants in their own order (InstructionError has no `Custom` slot, and
// `BorshIoError` is last), and export no name table at run time; these are its orders, with the RPC's names.
const TRANSACTION_ERROR_NAMES = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'InvalidLoadedAccountsDataSizeLimit',
  'ResanitizationNeeded', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;

const INSTRUCTION_ERROR_NAMES = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable',
  'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId',
  'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc',
  'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete',
  'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner',
  'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
] as const;

function instructionErrorJson(err: ReturnType<TransactionErrorInstructionError['err']>): TransactionErrorJson {
  if (err instanceof InstructionErrorCustom) return { Custom: err.code };
  if (err instanceof InstructionErrorBorshIo) return 'BorshIoError';
  return INSTRUCTION_ERROR_NAMES[err as number] ?? 'GenericError';
}

export function transactionErrorJson(failed: FailedTransactionMetadata): TransactionErrorJson {
  const err = failed.err();
  if (err instanceof TransactionErrorInstructionError) return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return TRANSACTION_ERROR_NAMES[err as number] ?? 'SanitizeFailure';
}

const TRANSACTION_ERROR_MESSAGES: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  SignatureFailure: 'Transaction did not pass signature verification',
};

/** The human text the RPC puts in front of a failed preflight; clients decode `data.err`, people read this. */
export function transactionErrorMessage(err: TransactionErrorJson): string {
  if (typeof err === 'string') return TRANSACTION_ERROR_MESSAGES[err] ?? err;
  const [variant, value] = Object.entries(err)[0] ?? ['SanitizeFailure', undefined];
  if (variant === 'InstructionError' && Array.isArray(value)) {
    const [index, inner] = value as [number, TransactionErrorJson];
    const detail = typeof inner === 'object' && 'Custom' in inner ? `custom program error: 0x${Number(inner.Custom).toString(16)}` : typeof inner === 'string' ? inner : JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${detail}`;
  }
  return `${variant}: ${JSON.stringify(value)}`;
}
