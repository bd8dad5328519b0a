import { Interface, Transaction, getAddress, isError, zeroPadValue, type Block, type JsonRpcProvider, type TransactionReceipt, type TransactionRequest, type Wallet } from 'ethers';
import { isNativeToken } from '../../domain/payment';
import type { ChainAction, TxCheck, TxFees } from '../family';
import type { EvmChainConfig } from './config';
import { TRANSFER_TOPIC, depositFactoryAbi, erc20Interface, paymentSalt } from './contracts';

const factoryInterface = new Interface(depositFactoryAbi);

/** A contract call (or plain value transfer) to sign: where, what, how much of the native coin. */
export interface EvmCall {
  to: string;
  data: string;
  value?: bigint;
}

/** Moves `amountUnits` of `token` out of the payment's deposit address (deploying its forwarder if needed). */
export function sweepCall(chain: EvmChainConfig, paymentId: string, token: string, to: string, amountUnits: string): EvmCall {
  return { to: chain.depositFactory, data: factoryInterface.encodeFunctionData('sweep', [paymentSalt(paymentId), token, to, amountUnits]) };
}

/** A transfer from the signer: an ERC-20 `transfer`, or a plain value transfer of the native coin. */
export function transferCall(token: string, to: string, amountUnits: string): EvmCall {
  if (isNativeToken(token)) return { to, data: '0x', value: BigInt(amountUnits) };
  return { to: token, data: erc20Interface.encodeFunctionData('transfer', [to, amountUnits]) };
}

/** EIP-1559 fees to sign with now: twice the node's suggestion, so a rising base fee does not strand the transaction. */
export async function currentFees(provider: JsonRpcProvider): Promise<TxFees> {
  const fees = await provider.getFeeData();
  return {
    maxFeePerGas: (fees.maxFeePerGas ?? fees.gasPrice ?? 1_000_000_000n) * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1_000_000n,
  };
}

/**
 * Fees for a replacement at the same nonce: nodes take one only when both fees rise by at least 10 %, so each rises
 * by a fifth at least, or to what the network asks now when that is more.
 */
export function bumpedFees(previous: TxFees, now: TxFees): TxFees {
  const bump = (fee: bigint) => (fee * 12n) / 10n + 1n;
  const maxPriorityFeePerGas = [bump(previous.maxPriorityFeePerGas), now.maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
  const maxFeePerGas = [bump(previous.maxFeePerGas), now.maxFeePerGas, maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** True when the node refused a call because it would revert (not a transport or node failure). */
export const isRevert = (err: unknown): boolean => isError(err, 'CALL_EXCEPTION');

/**
 * Gas for the call, estimated now, with the fees to sign it with and the node's pending nonce of the signer (both
 * read by the caller, which shares them between calls). Throws on a revert.
 */
export async function estimateCall(provider: JsonRpcProvider, from: string, call: EvmCall, shared: { fees: Promise<TxFees>; pendingNonce: Promise<number> }) {
  const request: TransactionRequest = { ...call, from };
  const [gas, fees, pendingNonce] = await Promise.all([provider.estimateGas(request), shared.fees, shared.pendingNonce]);
  return { gasLimit: (gas * 13n) / 10n, ...fees, pendingNonce };
}

/** The call a signed transaction makes and the gas it was given: what a replacement or re-plan signs again. */
export function signedCall(rawTx: string): { call: EvmCall; gasLimit: bigint; fees: TxFees; nonce: number } {
  const tx = Transaction.from(rawTx);
  return {
    call: { to: tx.to!, data: tx.data, value: tx.value },
    gasLimit: tx.gasLimit,
    fees: { maxFeePerGas: tx.maxFeePerGas ?? 0n, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n },
    nonce: tx.nonce,
  };
}

/** Signs the call at `nonce`; returns the raw bytes and the hash they will have on chain. */
export async function signCall(
  wallet: Wallet,
  chainId: number,
  call: EvmCall,
  tx: { nonce: number; gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<{ rawTx: string; txHash: string }> {
  const rawTx = await wallet.signTransaction({ ...call, chainId, type: 2, ...tx });
  return { rawTx, txHash: Transaction.from(rawTx).hash! };
}

/**
 * Sends stored raw bytes. `known`: the node has or mined them. `nonce-used`: the signer's nonce was used already;
 * whether by these bytes or by another transaction only the receipts can tell, so that is left to the caller.
 */
export async function broadcastRaw(provider: JsonRpcProvider, rawTx: string, txHash: string): Promise<'sent' | 'known' | 'nonce-used'> {
  let sentHash: unknown;
  try {
    // Not provider.broadcastTransaction: besides the send, it reads the head (one more request) and recovers the
    // sender from the signature (elliptic-curve math in JavaScript) for a response nobody reads. ethers classifies
    // the node's errors by method, so they read the same.
    sentHash = await provider.send('eth_sendRawTransaction', [rawTx]);
  } catch (err) {
    if (await provider.getTransactionReceipt(txHash)) return 'known';
    const message = String((err as Error).message).toLowerCase();
    if (message.includes('already known') || message.includes('known transaction')) return 'known';
    if (isError(err, 'NONCE_EXPIRED') || message.includes('nonce too low')) return 'nonce-used';
    throw err;
  }
  if (sentHash !== txHash) throw new Error(`the node answered hash ${String(sentHash)} for transaction ${txHash}`);
  return 'sent';
}


/**
 * The head and blocks by number, as the adapter shares them between its callers, and receipts, which it keeps while
 * their block stands (`MinedReceipts`).
 */
export interface BlockReads {
  head(): Promise<number>;
  block(blockNumber: number): Promise<Block | null>;
  /** The transaction's receipt, or null while the node has it in no block. */
  receipt(txHash: string): Promise<TransactionReceipt | null>;
}

/**
 * With `action`, a token transfer succeeded only when its receipt carries the token's `Transfer` of the amount to the
 * recipient (the receiver's side); a native transfer moves with the call itself.
 */
export async function checkTx(blocks: BlockReads, txHashes: string[], depth: number, action?: ChainAction): Promise<TxCheck> {
  const receipts = await Promise.all(txHashes.map((hash) => blocks.receipt(hash)));
  const receipt = receipts.find((r) => r !== null);
  if (!receipt) return { state: 'unmined' };
  const txHash = receipt.hash;
  if ((await blocks.head()) - receipt.blockNumber + 1 < depth) return { state: 'pending', txHash, blockNumber: receipt.blockNumber };
  const block = await blocks.block(receipt.blockNumber);
  if (block?.hash !== receipt.blockHash) return { state: 'pending', txHash };
  const succeeded = receipt.status === 1 && (!action || landedAtReceiver(receipt, action));
  return { state: 'mined', txHash, blockNumber: receipt.blockNumber, succeeded, confirmedAt: new Date(block.timestamp * 1000).toISOString() };
}

function landedAtReceiver(receipt: TransactionReceipt, action: ChainAction): boolean {
  if (isNativeToken(action.tokenAddress)) return true;
  const to = zeroPadValue(getAddress(action.to), 32).toLowerCase();
  return receipt.logs.some(
    (log) => log.address.toLowerCase() === action.tokenAddress.toLowerCase() && log.topics[0] === TRANSFER_TOPIC && log.topics[2]?.toLowerCase() === to && BigInt(log.data) === BigInt(action.amountUnits),
  );
}

/**
 * What the call would cost the signer now (wei): the gas it would use at the price it would pay, the latest block's
 * base fee and the tip it is signed with (its `maxFeePerGas` is only a ceiling).
 */
export async function estimateCallCost(provider: JsonRpcProvider, from: string, call: EvmCall, fees: Promise<TxFees>): Promise<bigint> {
  const [gas, { maxFeePerGas, maxPriorityFeePerGas }, block] = await Promise.all([provider.estimateGas({ ...call, from }), fees, provider.getBlock('latest')]);
  const price = (block?.baseFeePerGas ?? maxFeePerGas) + maxPriorityFeePerGas;
  return gas * (price < maxFeePerGas ? price : maxFeePerGas);
}
