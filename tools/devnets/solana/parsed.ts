// The RPC's `jsonParsed` encoding for the programs a payment flow touches: token accounts and mints of both token
// programs, and the system, token, associated-token and memo instructions. Anything else falls back the way the RPC
// does: accounts to base64, instructions to their partially decoded form.
import { AccountRole, isOption, isSome, type Address, type Instruction } from '@solana/kit';
import { encodeBase58 } from './base58';
import { parseSystemInstruction, SystemInstruction } from '@solana-program/system';
import { parseAssociatedTokenInstruction, AssociatedTokenInstruction, parseTokenInstruction, TokenInstruction } from '@solana-program/token';
import { getMintDecoder, getTokenDecoder, parseToken2022Instruction, Token2022Instruction } from '@solana-program/token-2022';
import {
  ASSOCIATED_TOKEN_PROGRAM,
  isTokenAccount,
  MEMO_PROGRAMS,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  uiTokenAmount,
  type AccountState,
} from './accounts';

type Info = Record<string, unknown>;
type Decimals = (mint: Address) => number | null;

const PROGRAM_NAMES: Record<string, string> = {
  [SYSTEM_PROGRAM]: 'system',
  [TOKEN_PROGRAM]: 'spl-token',
  [TOKEN_2022_PROGRAM]: 'spl-token-2022',
  [ASSOCIATED_TOKEN_PROGRAM]: 'spl-associated-token-account',
};

/** Codama's decoded values in the RPC's JSON: options unwrapped to value-or-null, maps as pairs, bytes as base64. */
function plain(value: unknown): unknown {
  if (isOption(value)) return isSome(value) ? plain(value.value) : null;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Map) return [...value].map(([k, v]) => [plain(k), plain(v)]);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

function extensionsJson(extensions: unknown): { extensions?: unknown[] } {
  const list = plain(extensions) as { __kind: string }[] | null;
  if (list === null || list.length === 0) return {};
  return {
    extensions: list.map(({ __kind, ...state }) => {
      const extension = __kind.charAt(0).toLowerCase() + __kind.slice(1);
      return Object.keys(state).length === 0 ? { extension } : { extension, state };
    }),
  };
}

const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'];

/** A token account or mint as `{ program, parsed: { type, info }, space }`, or null when the RPC would not parse it. */
export function parseAccountData(account: AccountState, decimalsOf: Decimals): { program: string; parsed: { type: string; info: Info }; space: number } | null {
  const program = PROGRAM_NAMES[account.owner];
  if (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM) return null;
  try {
    if (isTokenAccount(account)) {
      const token = getTokenDecoder().decode(account.data);
      const decimals = decimalsOf(token.mint) ?? 0;
      const delegate = plain(token.delegate) as Address | null;
      const native = plain(token.isNative) as bigint | null;
      const closeAuthority = plain(token.closeAuthority) as Address | null;
      const info: Info = {
        isNative: native !== null,
        mint: token.mint,
        owner: token.owner,
        state: ACCOUNT_STATES[token.state] ?? 'uninitialized',
        tokenAmount: uiTokenAmount(token.amount, decimals),
        ...(delegate === null ? {} : { delegate, delegatedAmount: uiTokenAmount(token.delegatedAmount, decimals) }),
        ...(native === null ? {} : { rentExemptReserve: uiTokenAmount(native, decimals) }),
        ...(closeAuthority === null ? {} : { closeAuthority }),
        ...extensionsJson(token.extensions),
      };
      return { program: program!, parsed: { type: 'account', info }, space: account.data.length };
    }
    const mint = getMintDecoder().decode(account.data);
    const info: Info = {
      decimals: mint.decimals,
      freezeAuthority: plain(mint.freezeAuthority),
      isInitialized: mint.isInitialized,
      mintAuthority: plain(mint.mintAuthority),
      supply: mint.supply.toString(),
      ...extensionsJson(mint.extensions),
    };
    return { program: program!, parsed: { type: 'mint', info }, space: account.data.length };
  } catch {
    return null;
  }
}

type Parsed = { instructionType: number; accounts: Record<string, { address: Address } | undefined>; data: Info };
type Mapping = (a: Record<string, Address | undefined>, d: Info, decimalsOf: Decimals) => Info;

const tokenAmountOf = (amount: unknown, decimals: unknown): Info => ({ ...uiTokenAmount(amount as bigint, Number(decimals)) });

// Keyed by the programs' instruction names (the same in Token and Token-2022); values are the RPC's type and info.
const TOKEN_MAPPINGS: Record<string, [string, Mapping]> = {
  Transfer: ['transfer', (a, d) => ({ source: a.source, destination: a.destination, authority: a.authority, amount: String(d.amount) })],
  TransferChecked: ['transferChecked', (a, d) => ({ source: a.source, mint: a.mint, destination: a.destination, authority: a.authority, tokenAmount: tokenAmountOf(d.amount, d.decimals) })],
  CloseAccount: ['closeAccount', (a) => ({ account: a.account, destination: a.destination, owner: a.owner })],
  InitializeAccount3: ['initializeAccount3', (a, d) => ({ account: a.account, mint: a.mint, owner: d.owner })],
  InitializeImmutableOwner: ['initializeImmutableOwner', (a) => ({ account: a.account })],
  GetAccountDataSize: ['getAccountDataSize', (a) => ({ mint: a.mint })],
  InitializeMint2: ['initializeMint2', (a, d) => ({ mint: a.mint, decimals: d.decimals, mintAuthority: d.mintAuthority, freezeAuthority: plain(d.freezeAuthority) })],
  MintTo: ['mintTo', (a, d) => ({ mint: a.mint, account: a.token, mintAuthority: a.mintAuthority, amount: String(d.amount) })],
  MintToChecked: ['mintToChecked', (a, d) => ({ mint: a.mint, account: a.token, mintAuthority: a.mintAuthority, tokenAmount: tokenAmountOf(d.amount, d.decimals) })],
  Burn: ['burn', (a, d) => ({ account: a.account, mint: a.mint, authority: a.authority, amount: String(d.amount) })],
  BurnChecked: ['burnChecked', (a, d) => ({ account: a.account, mint: a.mint, authority: a.authority, tokenAmount: tokenAmountOf(d.amount, d.decimals) })],
  SyncNative: ['syncNative', (a) => ({ account: a.account })],
};

const SYSTEM_MAPPINGS: Record<string, [string, Mapping]> = {
  CreateAccount: ['createAccount', (a, d) => ({ source: a.payer, newAccount: a.newAccount, lamports: d.lamports, space: d.space, owner: d.programAddress })],
  TransferSol: ['transfer', (a, d) => ({ source: a.source, destination: a.destination, lamports: d.amount })],
  AdvanceNonceAccount: ['advanceNonce', (a) => ({ nonceAccount: a.nonceAccount, recentBlockhashesSysvar: a.recentBlockhashesSysvar, nonceAuthority: a.nonceAuthority })],
  Assign: ['assign', (a, d) => ({ account: a.account, owner: d.programAddress })],
  Allocate: ['allocate', (a, d) => ({ account: a.newAccount, space: d.space })],
};

const ataMapping: Mapping = (a) => ({ source: a.payer, account: a.ata, wallet: a.owner, mint: a.mint, systemProgram: a.systemProgram, tokenProgram: a.tokenProgram });
const ATA_MAPPINGS: Record<string, [string, Mapping]> = {
  CreateAssociatedToken: ['create', ataMapping],
  CreateAssociatedTokenIdempotent: ['createIdempotent', ataMapping],
};

const PARSERS: Record<string, { parse: (ix: Instruction & { data: Uint8Array }) => Parsed; names: Record<number, string>; mappings: Record<string, [string, Mapping]> }> = {
  [SYSTEM_PROGRAM]: { parse: (ix) => parseSystemInstruction(ix), names: SystemInstruction, mappings: SYSTEM_MAPPINGS },
  [TOKEN_PROGRAM]: { parse: (ix) => parseTokenInstruction(ix) as unknown as Parsed, names: TokenInstruction, mappings: TOKEN_MAPPINGS },
  [TOKEN_2022_PROGRAM]: { parse: (ix) => parseToken2022Instruction(ix) as unknown as Parsed, names: Token2022Instruction, mappings: TOKEN_MAPPINGS },
  [ASSOCIATED_TOKEN_PROGRAM]: { parse: (ix) => parseAssociatedTokenInstruction(ix), names: AssociatedTokenInstruction, mappings: ATA_MAPPINGS },
};

/** One instruction in the RPC's jsonParsed form: parsed for the programs above, partially decoded otherwise. */
export function parseInstruction(programId: Address, accounts: Address[], data: Uint8Array, stackHeight: number | null, decimalsOf: Decimals): Info {
  if (MEMO_PROGRAMS.has(programId)) return { program: 'spl-memo', programId, parsed: Buffer.from(data).toString('utf8'), stackHeight };
  const parser = PARSERS[programId];
  if (parser !== undefined) {
    try {
      const parsed = parser.parse({ programAddress: programId, accounts: accounts.map((address) => ({ address, role: AccountRole.READONLY })), data });
      const mapping = parser.mappings[parser.names[parsed.instructionType] ?? ''];
      if (mapping !== undefined) {
        const [type, info] = mapping;
        const named = Object.fromEntries(Object.entries(parsed.accounts).map(([k, v]) => [k, v?.address]));
        return { program: PROGRAM_NAMES[programId], programId, parsed: { type, info: info(named, parsed.data, decimalsOf) }, stackHeight };
      }
    } catch {
      // Malformed or unmapped: reported partially decoded, like the RPC does.
    }
  }
  return { programId, accounts, data: encodeBase58(data), stackHeight };
}
