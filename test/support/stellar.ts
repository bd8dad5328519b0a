import { Asset, Horizon, Keypair, Memo, Operation, StrKey, TimeoutInfinite, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { formatUnits, parseUnits } from '../../domain/money';
import { stackChain, type DevStackInfo } from '../../tools/stack/stack';

const horizon = (info: DevStackInfo) => new Horizon.Server(stackChain(info, 'stellar').rpcUrl, { allowHttp: true });
const usdc = (info: DevStackInfo): Asset => {
  const [code, issuer] = stackChain(info, 'stellar').tokens.USDC.address.split(':');
  return new Asset(code!, issuer);
};

/** What `owner` holds of the devnet's USDC (base units, 7 decimals). */
export async function stellarUsdcBalance(info: DevStackInfo, owner: string): Promise<bigint> {
  const asset = usdc(info);
  const account = await horizon(info).loadAccount(owner);
  const line = account.balances.find((b) => 'asset_code' in b && b.asset_code === asset.getCode() && 'asset_issuer' in b && b.asset_issuer === asset.getIssuer());
  return line ? parseUnits(line.balance, 7) : 0n;
}

/** The receiving account and memo id a deposit (muxed) address stands for. */
export function stellarDestination(depositAddress: string): { account: string; memo: string } {
  const raw = StrKey.decodeMed25519PublicKey(depositAddress);
  return { account: StrKey.encodeEd25519PublicKey(raw.subarray(0, 32)), memo: raw.readBigUInt64BE(32).toString() };
}

async function submit(info: DevStackInfo, signer: Keypair, operations: xdr.Operation[], memo: Memo = Memo.none()): Promise<string> {
  const server = horizon(info);
  const tx = new TransactionBuilder(await server.loadAccount(signer.publicKey()), { fee: '100', networkPassphrase: stackChain(info, 'stellar').networkPassphrase })
    .addMemo(memo)
    .setTimeout(TimeoutInfinite);
  for (const op of operations) tx.addOperation(op);
  const built = tx.build();
  built.sign(signer);
  // Horizon answers once the ledger that applies it has closed.
  return (await server.submitTransaction(built)).hash;
}

const usdcPayment = (info: DevStackInfo, destination: string, amount: string) =>
  Operation.payment({ destination, asset: usdc(info), amount: formatUnits(parseUnits(amount, 7), 7) });

/** The account of `secret` pays USDC as an exchange withdrawal does: to the account, with the memo id (or none). */
export function stellarPayment(info: DevStackInfo, secret: string, to: { account: string; memo: string | null }, amount: string): Promise<string> {
  return submit(info, Keypair.fromSecret(secret), [usdcPayment(info, to.account, amount)], to.memo === null ? Memo.none() : Memo.id(to.memo));
}

/** The customer pays USDC as an exchange withdrawal does. */
export const stellarCustomerPayment = (info: DevStackInfo, to: { account: string; memo: string | null }, amount: string): Promise<string> =>
  stellarPayment(info, info.customer.stellar.secret, to, amount);

/**
 * `count` new accounts, created by the customer, each with a USDC trustline and `usdcEach` (decimal) USDC from the
 * customer: wallets that can pay (each with a sequence of its own) and that payouts can reach. Returns their keys.
 */
export async function newStellarUsdcAccounts(info: DevStackInfo, count: number, usdcEach = '0'): Promise<Keypair[]> {
  const customer = Keypair.fromSecret(info.customer.stellar.secret);
  const wallets = Array.from({ length: count }, () => Keypair.random());
  await submit(info, customer, wallets.map((w) => Operation.createAccount({ destination: w.publicKey(), startingBalance: '5' })));
  await Promise.all(wallets.map((w) => submit(info, w, [Operation.changeTrust({ asset: usdc(info) })])));
  if (usdcEach !== '0') await submit(info, customer, wallets.map((w) => usdcPayment(info, w.publicKey(), usdcEach)));
  return wallets;
}

/** A new account, created by the customer, with a USDC trustline: a merchant wallet payouts can reach. */
export async function newStellarUsdcAccount(info: DevStackInfo): Promise<string> {
  const [wallet] = await newStellarUsdcAccounts(info, 1);
  return wallet!.publicKey();
}
