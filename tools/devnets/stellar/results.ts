import { Asset, Keypair, xdr } from '@stellar/stellar-sdk';
import type { AssetRef } from './decode';

// Result codes as Horizon spells them (extras.result_codes), and the TransactionResult XDR stellar-core would produce.

export type TxCode =
  | 'tx_success' | 'tx_failed' | 'tx_too_early' | 'tx_too_late' | 'tx_missing_operation' | 'tx_bad_seq' | 'tx_bad_auth'
  | 'tx_insufficient_balance' | 'tx_no_source_account' | 'tx_insufficient_fee' | 'tx_bad_auth_extra' | 'tx_not_supported'
  | 'tx_malformed';

export type OpCode =
  | 'op_success' | 'op_bad_auth' | 'op_no_source_account' | 'op_not_supported' | 'op_malformed' | 'op_underfunded'
  | 'op_low_reserve' | 'op_already_exists' | 'op_src_no_trust' | 'op_no_destination' | 'op_no_trust' | 'op_line_full'
  | 'op_no_issuer' | 'op_invalid_limit' | 'op_too_few_offers' | 'op_under_dest_min' | 'op_over_source_max';

/** The operations this devnet applies; every other operation is refused with op_not_supported. */
export type SupportedOpType = 'createAccount' | 'payment' | 'pathPaymentStrictSend' | 'pathPaymentStrictReceive' | 'changeTrust';

/** What a successful path payment delivered, for its result's `last`. */
export interface Delivered { destination: string; asset: NonNullable<AssetRef>; amount: bigint }

export interface OpOutcome { type: SupportedOpType | undefined; code: OpCode; delivered?: Delivered }

export interface ResultCodes { transaction: TxCode; operations?: OpCode[] }

const TX_RESULTS: Record<Exclude<TxCode, 'tx_success' | 'tx_failed'>, () => xdr.TransactionResultResult> = {
  tx_too_early: () => xdr.TransactionResultResult.txTooEarly(),
  tx_too_late: () => xdr.TransactionResultResult.txTooLate(),
  tx_missing_operation: () => xdr.TransactionResultResult.txMissingOperation(),
  tx_bad_seq: () => xdr.TransactionResultResult.txBadSeq(),
  tx_bad_auth: () => xdr.TransactionResultResult.txBadAuth(),
  tx_insufficient_balance: () => xdr.TransactionResultResult.txInsufficientBalance(),
  tx_no_source_account: () => xdr.TransactionResultResult.txNoAccount(),
  tx_insufficient_fee: () => xdr.TransactionResultResult.txInsufficientFee(),
  tx_bad_auth_extra: () => xdr.TransactionResultResult.txBadAuthExtra(),
  tx_not_supported: () => xdr.TransactionResultResult.txNotSupported(),
  tx_malformed: () => xdr.TransactionResultResult.txMalformed(),
};

type InnerResults = Partial<Record<OpCode, () => xdr.OperationResultTr>>;

const createAccount = (r: xdr.CreateAccountResult) => xdr.OperationResultTr.createAccount(r);
const payment = (r: xdr.PaymentResult) => xdr.OperationResultTr.payment(r);
const changeTrust = (r: xdr.ChangeTrustResult) => xdr.OperationResultTr.changeTrust(r);
const strictSend = (r: xdr.PathPaymentStrictSendResult) => xdr.OperationResultTr.pathPaymentStrictSend(r);
const strictReceive = (r: xdr.PathPaymentStrictReceiveResult) => xdr.OperationResultTr.pathPaymentStrictReceive(r);

/** A path payment's success: no offers crossed (no conversion is modelled), and what reached the destination. */
function lastPayment(delivered: Delivered): xdr.SimplePaymentResult {
  const asset = delivered.asset.type === 'native' ? Asset.native() : new Asset(delivered.asset.code, delivered.asset.issuer);
  return new xdr.SimplePaymentResult({ destination: Keypair.fromPublicKey(delivered.destination).xdrAccountId(), asset: asset.toXDRObject(), amount: new xdr.Int64(delivered.amount) });
}

const OP_RESULTS: Record<Exclude<SupportedOpType, 'pathPaymentStrictSend' | 'pathPaymentStrictReceive'>, InnerResults> = {
  createAccount: {
    op_success: () => createAccount(xdr.CreateAccountResult.createAccountSuccess()),
    op_malformed: () => createAccount(xdr.CreateAccountResult.createAccountMalformed()),
    op_underfunded: () => createAccount(xdr.CreateAccountResult.createAccountUnderfunded()),
    op_low_reserve: () => createAccount(xdr.CreateAccountResult.createAccountLowReserve()),
    op_already_exists: () => createAccount(xdr.CreateAccountResult.createAccountAlreadyExist()),
  },
  payment: {
    op_success: () => payment(xdr.PaymentResult.paymentSuccess()),
    op_malformed: () => payment(xdr.PaymentResult.paymentMalformed()),
    op_underfunded: () => payment(xdr.PaymentResult.paymentUnderfunded()),
    op_src_no_trust: () => payment(xdr.PaymentResult.paymentSrcNoTrust()),
    op_no_destination: () => payment(xdr.PaymentResult.paymentNoDestination()),
    op_no_trust: () => payment(xdr.PaymentResult.paymentNoTrust()),
    op_line_full: () => payment(xdr.PaymentResult.paymentLineFull()),
    op_no_issuer: () => payment(xdr.PaymentResult.paymentNoIssuer()),
  },
  changeTrust: {
    op_success: () => changeTrust(xdr.ChangeTrustResult.changeTrustSuccess()),
    op_malformed: () => changeTrust(xdr.ChangeTrustResult.changeTrustMalformed()),
    op_no_issuer: () => changeTrust(xdr.ChangeTrustResult.changeTrustNoIssuer()),
    op_invalid_limit: () => changeTrust(xdr.ChangeTrustResult.changeTrustInvalidLimit()),
    op_low_reserve: () => changeTrust(xdr.ChangeTrustResult.changeTrustLowReserve()),
  },
};

const PATH_SEND_RESULTS: InnerResults = {
  op_malformed: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendMalformed()),
  op_underfunded: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendUnderfunded()),
  op_src_no_trust: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSrcNoTrust()),
  op_no_destination: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendNoDestination()),
  op_no_trust: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendNoTrust()),
  op_line_full: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendLineFull()),
  op_too_few_offers: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendTooFewOffers()),
  op_under_dest_min: () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendUnderDestmin()),
};

const PATH_RECEIVE_RESULTS: InnerResults = {
  op_malformed: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveMalformed()),
  op_underfunded: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveUnderfunded()),
  op_src_no_trust: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSrcNoTrust()),
  op_no_destination: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveNoDestination()),
  op_no_trust: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveNoTrust()),
  op_line_full: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveLineFull()),
  op_too_few_offers: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveTooFewOffers()),
  op_over_source_max: () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveOverSendmax()),
};

function innerResult({ type, code, delivered }: OpOutcome): (() => xdr.OperationResultTr) | undefined {
  if (type === 'pathPaymentStrictSend') {
    if (code !== 'op_success') return PATH_SEND_RESULTS[code];
    return () => strictSend(xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSuccess(new xdr.PathPaymentStrictSendResultSuccess({ offers: [], last: lastPayment(delivered!) })));
  }
  if (type === 'pathPaymentStrictReceive') {
    if (code !== 'op_success') return PATH_RECEIVE_RESULTS[code];
    return () => strictReceive(xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSuccess(new xdr.PathPaymentStrictReceiveResultSuccess({ offers: [], last: lastPayment(delivered!) })));
  }
  return type === undefined ? undefined : OP_RESULTS[type][code];
}

function operationResultXdr(outcome: OpOutcome): xdr.OperationResult {
  const { type, code } = outcome;
  if (code === 'op_bad_auth') return xdr.OperationResult.opBadAuth();
  if (code === 'op_no_source_account') return xdr.OperationResult.opNoAccount();
  if (code === 'op_not_supported') return xdr.OperationResult.opNotSupported();
  const inner = innerResult(outcome);
  if (!inner) throw new Error(`no ${type ?? 'unknown'} operation result for ${code}`);
  return xdr.OperationResult.opInner(inner());
}

/** `ops` is required for tx_success and tx_failed (one outcome per operation) and ignored otherwise. */
export function transactionResultXdr(feeCharged: bigint, code: TxCode, ops: OpOutcome[] = []): xdr.TransactionResult {
  const result = code === 'tx_success' ? xdr.TransactionResultResult.txSuccess(ops.map(operationResultXdr))
    : code === 'tx_failed' ? xdr.TransactionResultResult.txFailed(ops.map(operationResultXdr))
      : TX_RESULTS[code]();
  return new xdr.TransactionResult({ feeCharged: new xdr.Int64(feeCharged), result, ext: new xdr.TransactionResultExt(0) });
}

export function resultCodes(code: TxCode, ops: OpOutcome[]): ResultCodes {
  return code === 'tx_failed' ? { transaction: code, operations: ops.map((o) => o.code) } : { transaction: code };
}
