import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import type { DetectedPayin } from '../../domain/payins';

/** A token balance of a transaction's meta, as the RPC reports it (amounts in base units). */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/**
 * What a transaction did to balances, as a block (`transactionDetails: 'accounts'`) and `getTransaction` both give
 * it: every account key in the order the meta indexes them (static keys, then the lookup tables' writable and
 * readonly addresses), and the balances before and after.
 */
export interface TransactionBalances {
  signature: string;
  slot: number;
  keys: readonly string[];
  meta: {
    err: unknown;
    preBalances: readonly (bigint | number)[];
    postBalances: readonly (bigint | number)[];
    preTokenBalances?: readonly TokenBalance[] | null;
    postTokenBalances?: readonly TokenBalance[] | null;
  };
}

/** The account that gave the most of what `index` received: the largest decrease among the others, or null. */
function largestDecrease(indexes: number[], before: (i: number) => bigint, after: (i: number) => bigint): number | null {
  let best: number | null = null;
  let most = 0n;
  for (const i of indexes) {
    const spent = before(i) - after(i);
    if (spent > most) [best, most] = [i, spent];
  }
  return best;
}

/**
 * Every transfer a successful transaction made, read from its balance changes (so transfers by any program, inner
 * instructions and mints included): each token account whose balance went up is a transfer of its mint to its
 * owner, and each other account whose lamports went up a transfer of SOL to it; a transfer's identity is (signature,
 * the account's index in the transaction). The sender is the owner of the same mint's account that went down the
 * most (the fee payer when tokens were minted), or the account whose lamports went down the most.
 */
export function transfersOf(chainId: number, tx: TransactionBalances): DetectedPayin[] {
  if (tx.meta.err) return [];
  const pre = tx.meta.preTokenBalances ?? [];
  const post = tx.meta.postTokenBalances ?? [];
  const tokenAmount = (balances: readonly TokenBalance[], i: number) => BigInt(balances.find((b) => b.accountIndex === i)?.uiTokenAmount.amount ?? '0');
  const tokenAccounts = new Set([...pre, ...post].map((b) => b.accountIndex));
  const transfers: DetectedPayin[] = [];
  const base = { chainId, txHash: tx.signature, blockNumber: tx.slot };
  for (const credited of post) {
    const received = BigInt(credited.uiTokenAmount.amount) - tokenAmount(pre, credited.accountIndex);
    if (received <= 0n || !credited.owner) continue;
    const sameMint = pre.filter((b) => b.mint === credited.mint && b.accountIndex !== credited.accountIndex).map((b) => b.accountIndex);
    const source = largestDecrease(sameMint, (i) => tokenAmount(pre, i), (i) => tokenAmount(post, i));
    const from = source === null ? tx.keys[0] : pre.find((b) => b.accountIndex === source)?.owner;
    transfers.push({ ...base, logIndex: credited.accountIndex, tokenAddress: credited.mint, from: from ?? tx.keys[0]!, to: credited.owner, amountUnits: received.toString() });
  }
  const lamports = (balances: readonly (bigint | number)[], i: number) => BigInt(balances[i] ?? 0);
  const wallets = tx.keys.map((_, i) => i).filter((i) => !tokenAccounts.has(i));
  for (const i of wallets) {
    const received = lamports(tx.meta.postBalances, i) - lamports(tx.meta.preBalances, i);
    if (received <= 0n) continue;
    const source = largestDecrease(wallets, (j) => lamports(tx.meta.preBalances, j), (j) => lamports(tx.meta.postBalances, j));
    transfers.push({ ...base, logIndex: i, tokenAddress: NATIVE_TOKEN_ADDRESS, from: tx.keys[source ?? 0]!, to: tx.keys[i]!, amountUnits: received.toString() });
  }
  return transfers;
}
