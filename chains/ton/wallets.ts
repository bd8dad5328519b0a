/**
 * TON wallets and messages Payrail signs: the treasury and the deposit wallets (wallet v5r1), TEP-74 jetton
 * transfers, and the external message that carries each treasury transaction.
 *
 * Deposit wallets: each payment's deposit address is a wallet v5r1 whose key is SLIP-0010 derived from one seed
 * (path m/44'/607'/0'/a'/b'/c'/d'/e', docs/chains.md), so the service can always sign for it and no per-payment
 * secret is stored. A deposit wallet is never deployed by a payer: Payrail deploys it when it first sweeps it.
 */
import { Address, Cell, SendMode, beginCell, external, internal, loadMessage, storeMessage, type Message, type MessageRelaxed } from '@ton/core';
import { keyPairFromSecretKey, mnemonicToPrivateKey, type KeyPair } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { derivePrivateKey, depositPath, ed25519PublicKey } from '../solana/derivation';

/** SLIP-44 coin type of TON: the chain id Payrail gives TON and the deposit keys' second path level. */
export const TON_COIN_TYPE = 607;

/** TEP-74 op codes. */
export const JETTON_OPS = {
  transfer: 0x0f8a7ea5,
  internalTransfer: 0x178d4519,
  transferNotification: 0x7362d09c,
  excesses: 0xd53276db,
} as const;

export interface TonWallet {
  contract: WalletContractV5R1;
  keyPair: KeyPair;
}

/** Both kinds of wallet are v5r1 on the basechain with the default wallet id, as wallet apps create them. */
const v5r1 = (keyPair: KeyPair): TonWallet => ({ contract: WalletContractV5R1.create({ workchain: 0, publicKey: keyPair.publicKey }), keyPair });

/** The treasury wallet from its 64-byte ed25519 secret key (seed and public key, as nacl writes it). */
export const treasuryWallet = (secretKey: Uint8Array): TonWallet => v5r1(keyPairFromSecretKey(Buffer.from(secretKey)));

/** A wallet mnemonic's 64-byte secret key as hex, the form `TON_TREASURY_SECRET_KEY` takes. */
export const tonSecretKeyHex = async (mnemonic: string[]): Promise<string> => (await mnemonicToPrivateKey(mnemonic)).secretKey.toString('hex');

/** The payment's deposit wallet, derived from the deposit seed. */
export function depositWallet(depositSeed: Uint8Array, paymentId: string): TonWallet {
  const privateKey = derivePrivateKey(depositSeed, depositPath(paymentId, TON_COIN_TYPE));
  // node:crypto rather than tweetnacl's keyPairFromSeed: the same key pair, a hundred times faster.
  const publicKey = ed25519PublicKey(privateKey);
  return v5r1({ publicKey, secretKey: Buffer.concat([privateKey, publicKey]) });
}

/** The form Payrail stores TON addresses in: raw `<workchain>:<64 lowercase hex>`, immune to case folding. */
export const rawAddress = (address: Address): string => address.toRawString();

/** Raw (`0:<hex>`) or user-friendly (48 base64 or base64url characters, checksum verified) addresses; else null. */
export function parseTonAddress(text: string): Address | null {
  const trimmed = text.trim();
  if (!Address.isRaw(trimmed) && !Address.isFriendly(trimmed)) return null;
  try {
    const address = Address.parse(trimmed);
    return address.workChain === 0 || address.workChain === -1 ? address : null;
  } catch {
    return null;
  }
}

/** What wallets show and take for an address that may hold no code yet: user-friendly and non-bounceable. */
export const walletFacingAddress = (address: Address, testOnly = false): string => address.toString({ bounceable: false, urlSafe: true, testOnly });

/** TEP-74 `transfer`: moves `amount` jettons to `destination`'s jetton wallet; excess TON goes to `responseTo`. */
export function jettonTransferBody(p: { queryId: bigint; amount: bigint; destination: Address; responseTo: Address; forwardTonAmount: bigint }): Cell {
  return beginCell()
    .storeUint(JETTON_OPS.transfer, 32)
    .storeUint(p.queryId, 64)
    .storeCoins(p.amount)
    .storeAddress(p.destination)
    .storeAddress(p.responseTo)
    .storeBit(false) // no custom payload
    .storeCoins(p.forwardTonAmount)
    .storeBit(false) // empty forward payload, inline
    .endCell();
}

/** A wallet v5r1 request signed for delivery inside an internal message (`authType: internal`), each message with its send mode. */
export function signedInternalRequest(wallet: TonWallet, p: { seqno: number; validUntil: number; messages: Array<{ message: MessageRelaxed; mode: SendMode }> }): Cell {
  return wallet.contract.createRequest({
    seqno: p.seqno,
    secretKey: wallet.keyPair.secretKey,
    actions: p.messages.map(({ message, mode }) => ({ type: 'sendMsg' as const, mode, outMsg: message })),
    timeout: p.validUntil,
    authType: 'internal',
  });
}

/** Wallet v5r1 request op codes: a request signed for an external message, or for delivery inside an internal one. */
export const WALLET_V5R1_OPS = {
  signedExternal: WalletContractV5R1.OpCodes.auth_signed_external,
  signedInternal: WalletContractV5R1.OpCodes.auth_signed_internal,
} as const;

/** The seqno a wallet v5r1 external request carries (op, wallet id, valid until, seqno), or null for any other body. */
export function externalRequestSeqno(body: Cell): number | null {
  const slice = body.beginParse();
  if (slice.remainingBits < 128 || slice.loadUint(32) !== WALLET_V5R1_OPS.signedExternal) return null;
  slice.skip(64);
  return slice.loadUint(32);
}

/** The seqno of a stored treasury message (the base64 BoC `treasuryExternal` made). */
export const storedMessageSeqno = (boc: string): number | null => externalRequestSeqno(loadMessage(Cell.fromBase64(boc).beginParse()).body);

/** The treasury's signed external message carrying `messages`, with its TEP-467 normalized hash (the id Payrail records). */
export function treasuryExternal(wallet: TonWallet, p: { seqno: number; validUntil: number; messages: MessageRelaxed[] }): { boc: string; hash: string } {
  const body = wallet.contract.createTransfer({
    seqno: p.seqno,
    secretKey: wallet.keyPair.secretKey,
    messages: p.messages,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    timeout: p.validUntil,
  });
  const message = external({ to: wallet.contract.address, init: p.seqno === 0 ? wallet.contract.init : undefined, body });
  return { boc: beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64'), hash: normalizedHash(message) };
}

/**
 * TEP-467: the hash of an external-in message with its source, import fee and state init cleared and its body as a
 * reference. It names the message before and after inclusion, whoever relays it.
 */
export function normalizedHash(message: Message): string {
  if (message.info.type !== 'external-in') throw new Error('only external-in messages have a normalized hash');
  const normalized: Message = { info: { type: 'external-in', dest: message.info.dest, src: null, importFee: 0n }, init: null, body: message.body };
  return beginCell().store(storeMessage(normalized, { forceRef: true })).endCell().hash().toString('hex');
}

export { internal };
