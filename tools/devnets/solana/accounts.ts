import { address, type Address } from '@solana/kit';
import { encodeBase58 } from './base58';

export const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
export const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const ASSOCIATED_TOKEN_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
export const COMPUTE_BUDGET_PROGRAM = address('ComputeBudget111111111111111111111111111111');
export const ADDRESS_LOOKUP_TABLE_PROGRAM = address('AddressLookupTab1e1111111111111111111111111');
export const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
export const MEMO_PROGRAMS: ReadonlySet<string> = new Set([MEMO_PROGRAM, 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

/** One account as the ledger sees it (rent epochs are gone from the runtime; the RPC reports u64::MAX). */
export interface AccountState {
  lamports: bigint;
  data: Uint8Array;
  owner: Address;
  executable: boolean;
}

export const sameAccount = (a: AccountState | null, b: AccountState | null): boolean =>
  a === b ||
  (a !== null && b !== null && a.lamports === b.lamports && a.owner === b.owner && a.executable === b.executable &&
    Buffer.from(a.data).equals(Buffer.from(b.data)));

// SPL token account layout (the first 165 bytes are the same in Token-2022): mint, owner, amount, delegate, state, …
const TOKEN_ACCOUNT_SIZE = 165;
const TOKEN_2022_ACCOUNT_TYPE_OFFSET = 165;
const TOKEN_2022_ACCOUNT_TYPE_ACCOUNT = 2;
const MINT_DECIMALS_OFFSET = 44;

export const isTokenProgram = (owner: string): boolean => owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;

/** True for token accounts of either token program (not mints, not multisigs). */
export function isTokenAccount(account: AccountState): boolean {
  if (!isTokenProgram(account.owner)) return false;
  if (account.data.length === TOKEN_ACCOUNT_SIZE) return true;
  return account.owner === TOKEN_2022_PROGRAM && account.data.length > TOKEN_ACCOUNT_SIZE &&
    account.data[TOKEN_2022_ACCOUNT_TYPE_OFFSET] === TOKEN_2022_ACCOUNT_TYPE_ACCOUNT;
}

export interface TokenAccountHead { mint: Address; owner: Address; amount: bigint }

export function tokenAccountHead(account: AccountState): TokenAccountHead {
  return {
    mint: encodeBase58(account.data.subarray(0, 32)) as Address,
    owner: encodeBase58(account.data.subarray(32, 64)) as Address,
    amount: Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength).readBigUInt64LE(64),
  };
}

export function mintDecimals(mint: AccountState | null): number | null {
  if (mint === null || !isTokenProgram(mint.owner) || mint.data.length <= MINT_DECIMALS_OFFSET) return null;
  return mint.data[MINT_DECIMALS_OFFSET] ?? null;
}

export interface UiTokenAmount { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string }

/** The RPC's token amount: exact base units and decimal string, plus the (lossy) float it also reports. */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction === '' ? whole : `${whole}.${fraction}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
