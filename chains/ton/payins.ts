import type { Address, Transaction } from '@ton/core';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { NATIVE_LOG_INDEX, type DetectedPayin } from '../../domain/payins';
import { JETTON_OPS, rawAddress } from './wallets';

/** What an account of a transaction is to Payrail: a deposit wallet (native coin) or a deposit's jetton wallet (its master). */
export interface DepositAccount {
  /** The deposit address (raw) the account receives for. */
  address: string;
  /** NATIVE_TOKEN_ADDRESS for the deposit wallet itself, else the jetton master of the jetton wallet. */
  tokenAddress: string;
}

/** A jetton transfer a deposit wallet was notified of (TEP-74 `transfer_notification`), as its body claims it. */
export interface JettonNotification {
  /** The jetton wallet that sent the notification (to be checked against its master before it is believed). */
  wallet: Address;
  amount: bigint;
  sender: Address | null;
}

export const opOf = (tx: Transaction): number | null => {
  const body = tx.inMessage?.body.beginParse();
  return body && body.remainingBits >= 32 ? body.loadUint(32) : null;
};

/** An internal message the account took in (not a bounce of its own), with its source and value. */
function incoming(tx: Transaction): { src: Address; value: bigint } | null {
  const info = tx.inMessage?.info;
  if (info?.type !== 'internal' || info.bounced) return null;
  // A message the account bounced back left it nothing.
  if (tx.description.type !== 'generic' || tx.description.bouncePhase) return null;
  return { src: info.src, value: info.value.coins };
}

/**
 * The transfers one transaction made into an account of a deposit (`hash` is its hash in hex; `blockNumber` the
 * masterchain block that committed it):
 * - into a deposit wallet, the TON its inbound message carried (`NATIVE_LOG_INDEX`), whatever its body (a comment, a
 *   jetton notification, anything), with the fees the wallet paid on receipt (its storage fee at least);
 * - into a deposit's jetton wallet, a TEP-74 `internal_transfer` its code accepted (a forged one aborts in the
 *   wallet's code): the jettons (index 0), from the owner the message names.
 */
export function transfersOf(chainId: number, tx: Transaction, hash: string, blockNumber: number, account: DepositAccount): DetectedPayin[] {
  const base = { chainId, txHash: hash, blockNumber, to: account.address };
  const message = incoming(tx);
  if (!message) return [];
  if (account.tokenAddress === NATIVE_TOKEN_ADDRESS) {
    if (message.value === 0n) return [];
    const fee = tx.totalFees.coins;
    return [{ ...base, logIndex: NATIVE_LOG_INDEX, tokenAddress: NATIVE_TOKEN_ADDRESS, from: rawAddress(message.src), amountUnits: message.value.toString(), ...(fee > 0n ? { receiverFeeUnits: fee.toString() } : {}) }];
  }
  const d = tx.description;
  if (d.type !== 'generic' || d.aborted || d.computePhase.type !== 'vm' || !d.computePhase.success) return [];
  const body = tx.inMessage!.body.beginParse();
  if (body.remainingBits < 32 || body.loadUint(32) !== JETTON_OPS.internalTransfer) return [];
  body.loadUintBig(64);
  const amount = body.loadCoins();
  const from = body.loadMaybeAddress() ?? message.src;
  if (amount === 0n) return [];
  return [{ ...base, logIndex: 0, tokenAddress: account.tokenAddress, from: rawAddress(from), amountUnits: amount.toString() }];
}

/** The jetton transfer a deposit wallet's transaction was notified of, as the notification claims it; null for any other message. */
export function notificationOf(tx: Transaction): JettonNotification | null {
  const message = incoming(tx);
  if (!message || opOf(tx) !== JETTON_OPS.transferNotification) return null;
  try {
    const body = tx.inMessage!.body.beginParse();
    body.skip(32 + 64);
    const amount = body.loadCoins();
    return { wallet: message.src, amount, sender: body.loadMaybeAddress() };
  } catch {
    return null;
  }
}
