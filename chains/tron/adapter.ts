import { HDNodeWallet } from 'ethers';
import { TronWeb, type Types } from 'tronweb';
import { formatUnits } from '../../domain/money';
import type { DetectedPayin } from '../../domain/payins';
import { PriceUnavailable, type ChainAction, type ChainAdapter, type FeedReading, type PayinCheck, type PreparedChainTx, type SignedChainTx, type TxCheck, type WatchedDeposits } from '../family';
import type { TronChainConfig } from './config';
import { depositPath } from '../solana/derivation';

export interface TronKeys {
  /** Hex (no 0x): pays payouts and refunds, and the TRX each sweep burns. */
  treasuryPrivateKey?: string;
  /** BIP-32 seed of the deposit keys (32 to 64 bytes). */
  depositSeed?: Uint8Array;
}

/** Tron's SLIP-44 coin type: the deposit path's and the chain id's (docs/chains.md). */
const TRON_COIN_TYPE = 195;
const TRANSFER_SELECTOR = 'a9059cbb';
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

interface TronBlock {
  blockID?: string;
  block_header?: { raw_data: { number?: number; timestamp: number } };
  transactions?: Array<{
    txID: string;
    raw_data: { contract: Array<{ type: string; parameter: { value: { contract_address?: string; data?: string } } }> };
  }>;
}

interface TronTxInfo {
  id?: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  receipt?: { result?: string };
  log?: Array<{ address: string; topics: string[]; data: string }>;
}

/** A sweep is two transactions: the treasury's TRX top-up of the deposit, then the deposit's TRC-20 transfer. */
interface SweepBundle {
  topUp: Types.SignedTransaction;
  transfer: Types.SignedTransaction;
}

/** `41` + the 20-byte hex of an ABI-encoded address word. */
const wordToTronHex = (word: string): string => `41${word.slice(24, 64)}`.toLowerCase();

/**
 * Tron through the full-node HTTP API as TronGrid serves it, with tronweb building and signing. Deposit addresses
 * are secp256k1 keys derived per payment (BIP-32, m/44'/195'/0'/…, hardened); payins are TRC-20 `transfer` calls
 * found block by block and confirmed from their transaction info's Transfer logs. A deposit holds no TRX, so a
 * sweep is preceded by the treasury sending it `sweepTopUpSun` to burn for the call's energy.
 */
export class TronAdapter implements ChainAdapter {
  /** Transactions reference a recent block (TaPoS), not a sequence number: each lands on its own. */
  readonly orderedNonces = false;
  private readonly tronWeb: TronWeb;
  private readonly depositRoot: HDNodeWallet | null;

  constructor(
    readonly config: TronChainConfig,
    private readonly keys: TronKeys = {},
  ) {
    this.tronWeb = new TronWeb({ fullHost: config.rpcUrl });
    this.depositRoot = keys.depositSeed ? HDNodeWallet.fromSeed(keys.depositSeed) : null;
  }

  private depositKey(paymentId: string): string {
    if (!this.depositRoot) throw new Error(`no deposit seed is configured for chain ${this.config.chainId}`);
    const path = `m/${depositPath(paymentId, TRON_COIN_TYPE)
      .map((i) => `${i}'`)
      .join('/')}`;
    return this.depositRoot.derivePath(path).privateKey.slice(2);
  }

  depositAddress(paymentId: string): string {
    return TronWeb.address.fromPrivateKey(this.depositKey(paymentId)) as string;
  }

  private treasuryKey(): string {
    if (!this.keys.treasuryPrivateKey) throw new Error(`no treasury key is configured for chain ${this.config.chainId}`);
    return this.keys.treasuryPrivateKey;
  }

  /** A sweep's top-up never exceeds what its TRC-20 call may burn: the `fee_limit` it is signed with. */
  get maxSweepFuelUnits(): bigint {
    return BigInt(this.config.feeLimitSun);
  }

  treasuryAddress(): string {
    return TronWeb.address.fromPrivateKey(this.treasuryKey()) as string;
  }

  private request<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.tronWeb.fullNode.request<T>(path, body, 'post');
  }

  async head(): Promise<number> {
    const block = await this.request<TronBlock>('wallet/getnowblock', {});
    return block.block_header?.raw_data.number ?? 0;
  }

  async blockHash(n: number): Promise<string | null> {
    const block = await this.request<TronBlock>('wallet/getblockbynum', { num: n });
    return block.blockID ?? null;
  }

  /** The block header's timestamp (milliseconds on Tron), in seconds. */
  async blockTime(n: number): Promise<number | null> {
    const block = await this.request<TronBlock>('wallet/getblockbynum', { num: n });
    const ms = block.block_header?.raw_data.timestamp;
    return ms === undefined ? null : Math.floor(ms / 1000);
  }

  /**
   * Reads each block of the range once (`getblockbynum`) and fetches the transaction info only of TRC-20 `transfer`
   * calls of a configured token whose recipient is a watched deposit: one call per block plus one per payin.
   * Transfers made by other contracts (internal calls) are not seen; wallets call the token directly.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; watched: WatchedDeposits; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const deposits = await input.watched.all();
    if (deposits.length === 0) return [];
    const byHex = new Map(deposits.map((d) => [TronWeb.address.toHex(d.address).toLowerCase(), d.address]));
    const tokens = new Set(Object.values(this.config.tokens).map((t) => TronWeb.address.toHex(t.address).toLowerCase()));
    const payins: DetectedPayin[] = [];
    for (let n = input.fromBlock; n <= input.toBlock; n++) {
      const block = await this.request<TronBlock>('wallet/getblockbynum', { num: n });
      input.heartbeat();
      for (const tx of block.transactions ?? []) {
        const call = tx.raw_data.contract[0];
        const value = call?.parameter.value;
        if (call?.type !== 'TriggerSmartContract' || !value?.contract_address || !value.data) continue;
        if (!tokens.has(TronWeb.address.toHex(value.contract_address).toLowerCase())) continue;
        if (!value.data.startsWith(TRANSFER_SELECTOR) || !byHex.has(wordToTronHex(value.data.slice(8, 72)))) continue;
        payins.push(...(await this.transfersIn(tx.txID, byHex)));
      }
    }
    return payins;
  }

  /** The successful transaction's Transfer logs into watched deposits, one payin per log. */
  private async transfersIn(txID: string, deposits: Map<string, string>): Promise<DetectedPayin[]> {
    const info = await this.request<TronTxInfo>('wallet/gettransactioninfobyid', { value: txID });
    if (info.receipt?.result !== 'SUCCESS' || info.blockNumber === undefined) return [];
    return (info.log ?? []).flatMap((log, logIndex) => {
      if (log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) return [];
      const to = deposits.get(wordToTronHex(log.topics[2]!));
      if (!to) return [];
      return [
        {
          chainId: this.config.chainId,
          txHash: txID,
          logIndex,
          blockNumber: info.blockNumber!,
          tokenAddress: TronWeb.address.fromHex(`41${log.address.slice(-40)}`),
          from: TronWeb.address.fromHex(wordToTronHex(log.topics[1]!)),
          to,
          amountUnits: BigInt(`0x${log.data}`).toString(),
        },
      ];
    });
  }

  private info(txID: string): Promise<TronTxInfo> {
    return this.request<TronTxInfo>('wallet/gettransactioninfobyid', { value: txID });
  }

  /** Blocks never reorganize on Tron once solidified; a transaction the node does not know is missing. */
  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const info = await this.info(payin.txHash);
    if (info.blockNumber === undefined) return { state: 'missing' };
    if (info.receipt?.result !== 'SUCCESS') return { state: 'dropped' };
    if ((await this.head()) - info.blockNumber + 1 < depth) return { state: 'pending' };
    return { state: 'confirmed', payin: { ...payin, blockNumber: info.blockNumber, confirmedAt: new Date(info.blockTimeStamp ?? 0).toISOString() } };
  }

  private async transferCall(token: string, from: string, to: string, amountUnits: string, key: string): Promise<Types.SignedTransaction> {
    const { transaction } = await this.tronWeb.transactionBuilder.triggerSmartContract(
      token,
      'transfer(address,uint256)',
      { feeLimit: this.config.feeLimitSun },
      [
        { type: 'address', value: to },
        { type: 'uint256', value: amountUnits },
      ],
      from,
    );
    return this.tronWeb.trx.sign(transaction, key);
  }

  /**
   * Payouts and refunds are the treasury's TRC-20 transfers. A sweep is a bundle: the treasury's top-up of
   * `sweepTopUpSun` TRX to the deposit (which the call burns for energy; what is left stays there), then the
   * deposit's transfer; both are signed here and stored together, and the transfer's id is the sweep's.
   */
  prepare(action: ChainAction): Promise<PreparedChainTx> {
    const treasury = this.treasuryAddress();
    const key = this.treasuryKey();
    switch (action.kind) {
      case 'transfer':
        return Promise.resolve({
          signer: treasury,
          to: action.to,
          chainPendingNonce: 0,
          sign: async () => {
            const signed = await this.transferCall(action.tokenAddress, treasury, action.to, action.amountUnits, key);
            return { rawTx: JSON.stringify(signed), txHash: signed.txID };
          },
        });
      case 'sweep': {
        const depositKey = this.depositKey(action.paymentId);
        const deposit = TronWeb.address.fromPrivateKey(depositKey) as string;
        return Promise.resolve({
          signer: deposit,
          to: action.to,
          chainPendingNonce: 0,
          fuel: { to: deposit, amountUnits: String(this.config.sweepTopUpSun) },
          sign: async () => {
            const topUp = await this.tronWeb.trx.sign(await this.tronWeb.transactionBuilder.sendTrx(deposit, this.config.sweepTopUpSun, treasury), key);
            const transfer = await this.transferCall(action.tokenAddress, deposit, action.to, action.amountUnits, depositKey);
            const bundle: SweepBundle = { topUp, transfer };
            return { rawTx: JSON.stringify(bundle), txHash: transfer.txID };
          },
        });
      }
    }
  }

  private async send(tx: Types.SignedTransaction): Promise<void> {
    const sent = await this.tronWeb.trx.sendRawTransaction(tx);
    if (sent.result || sent.code === 'DUP_TRANSACTION_ERROR') return;
    // The node already has it in a block: success.
    if ((await this.info(tx.txID)).blockNumber !== undefined) return;
    const message = sent.message ? this.tronWeb.toUtf8(sent.message) : JSON.stringify(sent);
    throw new Error(`chain ${this.config.chainId} refused ${tx.txID}: ${String(sent.code)} ${message}`);
  }

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    if ((await this.info(tx.txHash)).blockNumber !== undefined) return 'known';
    const parsed = JSON.parse(tx.rawTx) as SweepBundle | Types.SignedTransaction;
    if ('topUp' in parsed) {
      await this.send(parsed.topUp);
      // The transfer spends the top-up: it is sent once the top-up is in a block, by a later broadcast (the wait for
      // the sweep re-broadcasts it at every new block while it is not mined).
      if ((await this.info(parsed.topUp.txID)).blockNumber === undefined) return 'sent';
      await this.send(parsed.transfer);
    } else {
      await this.send(parsed);
    }
    return 'sent';
  }

  /** Tron transactions are never replaced (no nonces): the first of the ids the node has in a block is looked at. */
  async checkTx(txHashes: string[], depth: number): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const info = await this.info(txHash);
      if (info.blockNumber === undefined) continue;
      if ((await this.head()) - info.blockNumber + 1 < depth) return { state: 'pending', txHash, blockNumber: info.blockNumber };
      return { state: 'mined', txHash, blockNumber: info.blockNumber, succeeded: info.receipt?.result === 'SUCCESS', confirmedAt: new Date(info.blockTimeStamp ?? 0).toISOString() };
    }
    return { state: 'unmined' };
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    const read = await this.tronWeb.transactionBuilder.triggerConstantContract(tokenAddress, 'balanceOf(address)', {}, [{ type: 'address', value: owner }], owner);
    const word = (read.constant_result as string[] | undefined)?.[0];
    return word ? BigInt(`0x${word}`) : 0n;
  }

  readUsdPriceFeed(feed: string): Promise<FeedReading> {
    return Promise.reject(new PriceUnavailable(`chain ${this.config.chainId} has no price feed ${feed}: Tron coins are not priced here`));
  }

  readonly explorer = {
    tx: (txHash: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/#/transaction/${txHash}` : null),
    address: (address: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/#/address/${address}` : null),
  };

  /**
   * Tron has no payment-URI standard that wallets agree on; `tron:<address>?amount=<decimal>&token=<contract>` is what
   * TronLink and most Tron wallets scan (an address alone where they do not read parameters).
   */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): string {
    const params = new URLSearchParams({ amount: formatUnits(BigInt(input.amountUnits), input.decimals) });
    if (input.tokenAddress) params.set('token', input.tokenAddress);
    return `tron:${input.address}?${params.toString()}`;
  }

  destroy(): void {
    // tronweb holds no connection between requests.
  }
}
