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
 * The customer pays as a Solana Pay wallet does: it creates the recipient's token account if needed (idempotent) and
 * sends `transferChecked` from its own. Returns the signature once the transaction is confirmed.
 */
export async function solanaCustomerTransfer(info: DevStackInfo, symbol: SolanaTokenSymbol, to: string, amount: string): Promise<string> {
  return solanaTransferFrom(info, info.customer.solana.secretKey, symbol, to, amount);
}

/** As `solanaCustomerTransfer`, from the owner of `secretKey` (64 bytes, as solana-keygen writes it), who pays the fee. */
export async function solanaTransferFrom(info: DevStackInfo, secretKey: number[], symbol: SolanaTokenSymbol, to: string, amount: string): Promise<string> {
  const chain = stackChain(info, 'solana');
  const token = chain.tokens[symbol];
  const rpc = createSolanaRpc(chain.rpcUrl);
  const customer = await createKeyPairSignerFromBytes(Uint8Array.from(secretKey));
  const mint = address(token.address);
  const programAddress = address(token.tokenProgram);
  const destination = await tokenAccount(info, symbol, to);
  const instructions = [
    getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner: address(to), mint, tokenProgram: programAddress }),
    getTransferCheckedInstruction(
      { source: await tokenAccount(info, symbol, customer.address), mint, destination, authority: customer, amount: parseUnits(amount, token.decimals), decimals: token.decimals },
      { programAddress },
    ),
  ];
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(customer, m),
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
