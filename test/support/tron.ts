import { TronWeb, utils as tronUtils } from 'tronweb';
import { parseUnits } from '../../domain/money';
import { stackChain, type DevStackInfo } from '../../tools/stack/stack';
import { eventually } from './poll';

const client = (info: DevStackInfo) => new TronWeb({ fullHost: stackChain(info, 'tron').rpcUrl });

/** What `owner` holds of the devnet's USDT (base units). */
export async function tronUsdtBalance(info: DevStackInfo, owner: string): Promise<bigint> {
  const read = await client(info).transactionBuilder.triggerConstantContract(stackChain(info, 'tron').tokens.USDT.address, 'balanceOf(address)', {}, [{ type: 'address', value: owner }], owner);
  return BigInt(`0x${(read.constant_result as string[])[0] ?? '0'}`);
}

/** `from` pays USDT as TronLink does: a TRC-20 `transfer` call it signs. Returns the transaction id once it is in a block. */
export async function tronTransfer(info: DevStackInfo, from: { address: string; privateKey: string }, to: string, amount: string): Promise<string> {
  const tronWeb = client(info);
  const token = stackChain(info, 'tron').tokens.USDT;
  const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
    token.address,
    'transfer(address,uint256)',
    { feeLimit: 100_000_000 },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: parseUnits(amount, token.decimals).toString() },
    ],
    from.address,
  );
  const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(transaction, from.privateKey));
  if (!sent.result) throw new Error(`the Tron devnet refused the customer's transfer: ${String(sent.code)}`);
  await eventually(`${transaction.txID} to be in a block`, 30_000, async () => ((await tronWeb.trx.getUnconfirmedTransactionInfo(transaction.txID)).blockNumber ? true : undefined), 250);
  return transaction.txID;
}

/** The devnet customer pays USDT as TronLink does. */
export const tronCustomerTransfer = (info: DevStackInfo, to: string, amount: string): Promise<string> => tronTransfer(info, info.customer.tron, to, amount);

/** A fresh Tron address nobody has used. */
export const newTronAddress = (): string => tronUtils.accounts.generateAccount().address.base58;

/** `privateKey`'s owner sends `sun` TRX to `to`. Returns the transaction id once it is in a block. */
export async function tronTrxTransfer(info: DevStackInfo, privateKey: string, to: string, sun: bigint): Promise<string> {
  const tronWeb = client(info);
  const from = TronWeb.address.fromPrivateKey(privateKey) as string;
  const transaction = await tronWeb.transactionBuilder.sendTrx(to, Number(sun), from);
  const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(transaction, privateKey));
  if (!sent.result) throw new Error(`the Tron devnet refused the TRX transfer: ${String(sent.code)}`);
  await eventually(`${transaction.txID} to be in a block`, 30_000, async () => ((await tronWeb.trx.getUnconfirmedTransactionInfo(transaction.txID)).blockNumber ? true : undefined), 250);
  return transaction.txID;
}
