/** A TON wallet app in the tests: the customer pays with an unmodified `TonClient` and wallet v5r1, as wallets do. */
import { mnemonicToPrivateKey, type KeyPair } from '@ton/crypto';
import { Address, SendMode, TonClient, WalletContractV5R1, beginCell, comment, internal, toNano, type OpenedContract } from '@ton/ton';
import { jettonTransferBody } from '../../chains/ton/wallets';
import { eventually } from './poll';

export interface TonPayer {
  client: TonClient;
  wallet: OpenedContract<WalletContractV5R1>;
  key: KeyPair;
}

export async function tonPayer(endpoint: string, mnemonic: string[]): Promise<TonPayer> {
  const key = await mnemonicToPrivateKey(mnemonic);
  const client = new TonClient({ endpoint });
  return { client, key, wallet: client.open(WalletContractV5R1.create({ workchain: 0, publicKey: key.publicKey })) };
}

/** Sends one wallet message (up to 255 outputs) and waits until the wallet's seqno shows it was included. */
async function send(payer: TonPayer, ...messages: Array<ReturnType<typeof internal>>): Promise<void> {
  const seqno = await payer.wallet.getSeqno();
  await payer.wallet.sendTransfer({ seqno, secretKey: payer.key.secretKey, messages, sendMode: SendMode.PAY_GAS_SEPARATELY });
  await eventually(`seqno ${seqno + 1} of the TON payer`, 60_000, async () => ((await payer.wallet.getSeqno()) > seqno ? true : undefined));
}

/** One wallet message with an output of `nanotons` to `to` per entry (non-bounceable, as to an address without code). */
export const payTonOutputs = (payer: TonPayer, outputs: Array<{ to: string; nanotons: bigint }>): Promise<void> =>
  send(payer, ...outputs.map(({ to, nanotons }) => internal({ to: Address.parse(to), value: nanotons, bounce: false })));

/** TON to an address that may have no code yet: non-bounceable, as wallets send to such addresses, with an optional comment. */
export const payTon = (payer: TonPayer, to: string, nanotons: bigint, text?: string): Promise<void> =>
  send(payer, internal({ to: Address.parse(to), value: nanotons, bounce: false, body: text === undefined ? undefined : comment(text) }));

/** TEP-74 jetton transfers from the payer's jetton wallet in one wallet message, each with a notification to its recipient as wallet apps send it. */
export async function payJettonOutputs(payer: TonPayer, master: string, outputs: Array<{ to: string; units: bigint }>): Promise<void> {
  const { stack } = await payer.client.runMethod(Address.parse(master), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(payer.wallet.address).endCell() }]);
  const jettonWallet = stack.readAddress();
  const transfer = ({ to, units }: { to: string; units: bigint }) =>
    internal({ to: jettonWallet, value: toNano('0.1'), bounce: true, body: jettonTransferBody({ queryId: 0n, amount: units, destination: Address.parse(to), responseTo: payer.wallet.address, forwardTonAmount: 1n }) });
  await send(payer, ...outputs.map(transfer));
}

/** A TEP-74 jetton transfer, as a wallet app sends it. */
export const payJetton = (payer: TonPayer, master: string, to: string, units: bigint): Promise<void> => payJettonOutputs(payer, master, [{ to, units }]);
