import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
} from '@solana/kit';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token-2022';
import { parseUnits } from '../../domain/money';
import { stackChain, type DevStackInfo, type StackChain } from '../../tools/stack/stack';
import { eventually } from './poll';

export type SolanaTokenSymbol = keyof StackChain<'solana'>['tokens'];

async function tokenAccount(info: DevStackInfo, symbol: SolanaTokenSymbol, owner: string): Promise<Address> {
  const token = stackChain(info, 'solana').tokens[symbol];
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(token.address), tokenProgram: address(token.tokenProgram) });
  return ata;
}

/** What `owner` holds of the token on the Solana devnet (base units), at confirmed commitment. */
export async function solanaTokenBalance(info: DevStackInfo, symbol: SolanaTokenSymbol, owner: string): Promise<bigint> {
  const rpc = createSolanaRpc(stackChain(info, 'solana').rpcUrl);
  const { value } = await rpc.getAccountInfo(await tokenAccount(info, symbol, owner), { commitment: 'confirmed', encoding: 'base64' }).send();
  return value ? Buffer.from(value.data[0], 'base64').readBigUInt64LE(64) : 0n;
}

/**
 * A token transfer out of the account of the key `from` (64-byte secret, seed then public key), as a Solana Pay wallet
 * sends it: it creates the recipient's token account if needed (idempotent) and sends `transferChecked`, the fees and
 * the account paid by `feePayer` (the same key by default). Returns the signature once the transaction is confirmed.
 */
export async function solanaTokenTransfer(
  info: DevStackInfo,
  symbol: SolanaTokenSymbol,
  keys: { from: ArrayLike<number>; feePayer?: ArrayLike<number> },
  to: string,
  amount: string,
): Promise<string> {
  const chain = stackChain(info, 'solana');
  const token = chain.tokens[symbol];
  const rpc = createSolanaRpc(chain.rpcUrl);
  const owner = await createKeyPairSignerFromBytes(Uint8Array.from(keys.from));
  const payer = keys.feePayer ? await createKeyPairSignerFromBytes(Uint8Array.from(keys.feePayer)) : owner;
  const mint = address(token.address);
  const programAddress = address(token.tokenProgram);
  const destination = await tokenAccount(info, symbol, to);
  const instructions = [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: address(to), mint, tokenProgram: programAddress }),
    getTransferCheckedInstruction(
      { source: await tokenAccount(info, symbol, owner.address), mint, destination, authority: owner, amount: parseUnits(amount, token.decimals), decimals: token.decimals },
      { programAddress },
    ),
  ];
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
  const signature = getSignatureFromTransaction(signed);
  await eventually(`${signature} to be confirmed`, 30_000, async () => {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    return value[0]?.confirmationStatus ? true : undefined;
  });
  return signature;
}

/** The devnet customer pays `amount` (decimal) of the token to `to` as a Solana Pay wallet does. */
export const solanaCustomerTransfer = (info: DevStackInfo, symbol: SolanaTokenSymbol, to: string, amount: string): Promise<string> =>
  solanaTokenTransfer(info, symbol, { from: info.customer.solana.secretKey }, to, amount);
