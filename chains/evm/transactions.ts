import { Interface, Transaction, keccak256, toUtf8Bytes, type JsonRpcProvider, type TransactionRequest, type Wallet } from 'ethers';
import { isNativeToken } from '../../domain/payment';
import type { TxCheck } from '../family';
import type { EvmChainConfig } from '../registry';
import { depositFactoryAbi, devnetBridgeAbi, erc20Interface, paymentSalt } from './contracts';

const factoryInterface = new Interface(depositFactoryAbi);
const bridgeInterface = new Interface(devnetBridgeAbi);

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

/** The id tying a bridge burn to its mint: one per payment, so neither can happen twice on chain. */
export const bridgeTransferId = (paymentId: string): string => keccak256(toUtf8Bytes(`payrail:bridge:${paymentId}`));

export function bridgeBurnCall(bridge: string, paymentId: string, token: string, amountUnits: string, destinationChainId: number, recipient: string): EvmCall {
  return { to: bridge, data: bridgeInterface.encodeFunctionData('burn', [bridgeTransferId(paymentId), token, amountUnits, destinationChainId, recipient]) };
}

export function bridgeMintCall(bridge: string, paymentId: string, token: string, amountUnits: string, sourceChainId: number, recipient: string): EvmCall {
  return { to: bridge, data: bridgeInterface.encodeFunctionData('mint', [bridgeTransferId(paymentId), token, amountUnits, sourceChainId, recipient]) };
}

/** Gas and EIP-1559 fees for the call, estimated now, plus the node's pending nonce of the signer. */
export async function estimateCall(provider: JsonRpcProvider, from: string, call: EvmCall) {
  const request: TransactionRequest = { ...call, from };
  const [gas, fees, pendingNonce] = await Promise.all([
    provider.estimateGas(request),
    provider.getFeeData(),
    provider.getTransactionCount(from, 'pending'),
  ]);
  return {
    gasLimit: (gas * 13n) / 10n,
    maxFeePerGas: (fees.maxFeePerGas ?? fees.gasPrice ?? 1_000_000_000n) * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1_000_000n,
    pendingNonce,
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

/** Sends stored raw bytes; "already known" and "nonce too low" mean the node has (or mined) them. */
export async function broadcastRaw(provider: JsonRpcProvider, rawTx: string, txHash: string): Promise<void> {
  try {
    await provider.broadcastTransaction(rawTx);
  } catch (err) {
    if (await provider.getTransactionReceipt(txHash)) return;
    const message = String((err as Error).message).toLowerCase();
    if (message.includes('already known') || message.includes('known transaction') || message.includes('nonce too low')) return;
    throw err;
  }
}


export async function checkTx(provider: JsonRpcProvider, txHash: string, depth: number): Promise<TxCheck> {
  const receipt = await provider.getTransactionReceipt(txHash);
  if (!receipt) return { state: 'unmined' };
  if ((await provider.getBlockNumber()) - receipt.blockNumber + 1 < depth) return { state: 'pending' };
  const block = await provider.getBlock(receipt.blockNumber);
  if (block?.hash !== receipt.blockHash) return { state: 'pending' };
  return { state: 'mined', blockNumber: receipt.blockNumber, succeeded: receipt.status === 1, confirmedAt: new Date(block.timestamp * 1000).toISOString() };
}
