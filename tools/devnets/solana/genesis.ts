// What a fresh devnet holds before anyone uses it: a funded faucet, the USDC and PYUSD mints, and the treasury and
// customer with SOL and both tokens. All of it is made by ordinary signed transactions through the RPC's own send
// path, so the history (getSignaturesForAddress, getTransaction) starts at genesis like a cluster's.
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getTransactionEncoder,
  none,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  some,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  extension,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getPostInitializeInstructionsForMintExtensions,
  getPreInitializeInstructionsForMintExtensions,
  type ExtensionArgs,
} from '@solana-program/token-2022';
import { MEMO_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './accounts';
import { devnetKey, type DevnetKey } from './keys';
import type { Ledger } from './ledger';
import type { Airdrop, SolanaRpc } from './rpc';

export const LAMPORTS_PER_SOL = 1_000_000_000n;
const FAUCET_LAMPORTS = 500_000_000n * LAMPORTS_PER_SOL;
const TREASURY_LAMPORTS = 10_000n * LAMPORTS_PER_SOL;
const CUSTOMER_LAMPORTS = 100n * LAMPORTS_PER_SOL;
const TOKEN_DECIMALS = 6;
const TREASURY_TOKENS = 1_000_000n * 10n ** BigInt(TOKEN_DECIMALS);
const CUSTOMER_TOKENS = 10_000n * 10n ** BigInt(TOKEN_DECIMALS);
const CLASSIC_MINT_SIZE = 82;

export interface DevnetKeys {
  faucet: DevnetKey;
  treasury: DevnetKey;
  customer: DevnetKey;
  usdcMint: DevnetKey;
  usdcAuthority: DevnetKey;
  pyusdMint: DevnetKey;
  pyusdAuthority: DevnetKey;
}

export async function devnetKeys(): Promise<DevnetKeys> {
  const [faucet, treasury, customer, usdcMint, usdcAuthority, pyusdMint, pyusdAuthority] = await Promise.all(
    (['faucet', 'treasury', 'customer', 'usdc-mint', 'usdc-authority', 'pyusd-mint', 'pyusd-authority'] as const).map(devnetKey),
  );
  return { faucet: faucet!, treasury: treasury!, customer: customer!, usdcMint: usdcMint!, usdcAuthority: usdcAuthority!, pyusdMint: pyusdMint!, pyusdAuthority: pyusdAuthority! };
}

/** Signs with every signer the instructions name and sends through the RPC's normal path (preflight included). */
export async function signAndSend(rpc: SolanaRpc, ledger: Ledger, feePayer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
  const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash('processed');
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return rpc.send(new Uint8Array(getTransactionEncoder().encode(signed)), false);
}

/**
 * requestAirdrop: a plain transfer from the faucet account. A numbered memo keeps two equal airdrops in one slot from
 * being one transaction.
 */
export function faucetAirdrop(rpc: () => SolanaRpc, ledger: Ledger, faucet: KeyPairSigner): Airdrop {
  let airdrops = 0;
  return (to, lamports) => {
    airdrops += 1;
    return signAndSend(rpc(), ledger, faucet, [
      getTransferSolInstruction({ source: faucet, destination: to, amount: lamports }),
      { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode(`airdrop ${airdrops}`) },
    ]);
  };
}

/** The Token-2022 extensions PYUSD has on mainnet, with a zero transfer fee and no transfer-hook program. */
export function pyusdExtensions(mint: Address, authority: Address): ExtensionArgs[] {
  const zeroFee = { epoch: 0n, maximumFee: 0n, transferFeeBasisPoints: 0 };
  return [
    extension('MintCloseAuthority', { closeAuthority: authority }),
    extension('TransferFeeConfig', { transferFeeConfigAuthority: authority, withdrawWithheldAuthority: authority, withheldAmount: 0n, olderTransferFee: zeroFee, newerTransferFee: zeroFee }),
    extension('ConfidentialTransferMint', { authority: some(authority), autoApproveNewAccounts: false, auditorElgamalPubkey: none() }),
    // Required alongside a transfer fee once confidential transfers are configured; the all-zero ElGamal key is the
    // identity point, a valid encoding nobody can decrypt to.
    extension('ConfidentialTransferFee', { authority: some(authority), elgamalPubkey: SYSTEM_PROGRAM, harvestToMintEnabled: true, withheldAmount: new Uint8Array(64) }),
    extension('PermanentDelegate', { delegate: authority }),
    // An all-zero program id is "no hook program", as on mainnet PYUSD.
    extension('TransferHook', { authority, programId: SYSTEM_PROGRAM }),
    extension('MetadataPointer', { authority: some(authority), metadataAddress: some(mint) }),
    extension('TokenMetadata', { updateAuthority: some(authority), mint, name: 'PayPal USD', symbol: 'PYUSD', uri: '', additionalMetadata: new Map() }),
  ];
}

async function fundToken(rpc: SolanaRpc, ledger: Ledger, keys: DevnetKeys, mint: Address, authority: KeyPairSigner, tokenProgram: Address): Promise<void> {
  const instructions: Instruction[] = [];
  for (const [owner, amount] of [[keys.treasury.signer.address, TREASURY_TOKENS], [keys.customer.signer.address, CUSTOMER_TOKENS]] as const) {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({ payer: keys.treasury.signer, ata, owner, mint, tokenProgram }),
      getMintToCheckedInstruction({ mint, token: ata, mintAuthority: authority, amount, decimals: TOKEN_DECIMALS }, { programAddress: tokenProgram }),
    );
  }
  await signAndSend(rpc, ledger, keys.treasury.signer, instructions);
}

/** Runs once on a fresh ledger. */
export async function genesis(rpc: SolanaRpc, ledger: Ledger, keys: DevnetKeys, airdrop: Airdrop): Promise<void> {
  ledger.setGenesisAccount(keys.faucet.signer.address, { lamports: FAUCET_LAMPORTS, data: new Uint8Array(), owner: SYSTEM_PROGRAM, executable: false });
  await airdrop(keys.treasury.signer.address, TREASURY_LAMPORTS);
  await airdrop(keys.customer.signer.address, CUSTOMER_LAMPORTS);

  const payer = keys.treasury.signer;
  const usdc = keys.usdcMint.signer;
  const usdcAuthority = keys.usdcAuthority.signer;
  await signAndSend(rpc, ledger, payer, [
    getCreateAccountInstruction({ payer, newAccount: usdc, lamports: ledger.minimumBalanceForRentExemption(BigInt(CLASSIC_MINT_SIZE)), space: CLASSIC_MINT_SIZE, programAddress: TOKEN_PROGRAM }),
    getInitializeMint2Instruction({ mint: usdc.address, decimals: TOKEN_DECIMALS, mintAuthority: usdcAuthority.address, freezeAuthority: usdcAuthority.address }, { programAddress: TOKEN_PROGRAM }),
  ]);
  await fundToken(rpc, ledger, keys, usdc.address, usdcAuthority, TOKEN_PROGRAM);

  const pyusd = keys.pyusdMint.signer;
  const pyusdAuthority = keys.pyusdAuthority.signer;
  const extensions = pyusdExtensions(pyusd.address, pyusdAuthority.address);
  // The account is created without room for the variable-length metadata, but funded for it: the metadata
  // instruction reallocates.
  const fixedExtensions = extensions.filter((e) => e.__kind !== 'TokenMetadata');
  await signAndSend(rpc, ledger, payer, [
    getCreateAccountInstruction({
      payer,
      newAccount: pyusd,
      lamports: ledger.minimumBalanceForRentExemption(BigInt(getMintSize(extensions))),
      space: getMintSize(fixedExtensions),
      programAddress: TOKEN_2022_PROGRAM,
    }),
    ...getPreInitializeInstructionsForMintExtensions(pyusd.address, extensions),
    getInitializeMint2Instruction({ mint: pyusd.address, decimals: TOKEN_DECIMALS, mintAuthority: pyusdAuthority.address, freezeAuthority: pyusdAuthority.address }),
  ]);
  await signAndSend(rpc, ledger, payer, getPostInitializeInstructionsForMintExtensions(pyusd.address, pyusdAuthority, extensions));
  await fundToken(rpc, ledger, keys, pyusd.address, pyusdAuthority, TOKEN_2022_PROGRAM);
}
