// The index behind TronGrid's /v1/accounts/{address}/transactions/trc20: every TRC-20 Transfer event of every
// block, in chain order, with the token's symbol, name and decimals read once per contract.
import { Interface, id as keccakId } from 'ethers';
import { fromEvmAddress, type TronHex } from './codec';
import type { EvmRpc } from './hardhat';

/** keccak("Transfer(address,address,uint256)"): TRC-20 and ERC-20 share it (ERC-721 has a 4th topic). */
const TRANSFER_TOPIC = keccakId('Transfer(address,address,uint256)');

const TOKEN_ABI = new Interface([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
]);

export interface Trc20Transfer {
  txID: string;
  blockNumber: number;
  logIndex: number;
  timestamp: number;
  token: TronHex;
  from: TronHex;
  to: TronHex;
  value: bigint;
}
export interface TokenInfo { symbol: string; name: string; decimals: number }

export interface Trc20Query {
  address: TronHex;
  onlyTo: boolean;
  onlyFrom: boolean;
  token?: TronHex;
  minTimestamp?: number;
  maxTimestamp?: number;
  /** Highest block to include (the head, or the solidified head for only_confirmed). */
  upTo: number;
  /** Lowest block to include (above the solidified head for only_unconfirmed). */
  from: number;
  ascending: boolean;
  limit: number;
  /** Opaque cursor from the previous page. */
  fingerprint?: string;
}

interface EvmLog { address: string; topics: string[]; data: string; blockNumber: string; transactionHash: string; logIndex: string }

const position = (t: Pick<Trc20Transfer, 'blockNumber' | 'logIndex'>): number => t.blockNumber * 1_000_000 + t.logIndex;

export class InvalidFingerprint extends Error {}

function decodeFingerprint(fingerprint: string): number {
  const [block, log] = Buffer.from(fingerprint, 'base64url').toString('utf8').split(':').map(Number);
  if (block === undefined || log === undefined || !Number.isSafeInteger(block) || !Number.isSafeInteger(log)) {
    throw new InvalidFingerprint('invalid fingerprint');
  }
  return position({ blockNumber: block, logIndex: log });
}

export class Trc20Index {
  private readonly transfers: Trc20Transfer[] = [];
  private readonly tokens = new Map<TronHex, TokenInfo>();

  constructor(private readonly rpc: EvmRpc) {}

  async indexBlocks(from: number, to: number, timestampOf: (block: number) => number, txIdOf: (evmHash: string) => string): Promise<void> {
    if (from > to) return;
    const logs = await this.rpc.call<EvmLog[]>('eth_getLogs', [
      { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [TRANSFER_TOPIC] },
    ]);
    for (const log of logs) {
      const [, fromTopic, toTopic] = log.topics;
      if (log.topics.length !== 3 || fromTopic === undefined || toTopic === undefined) continue;
      const token = fromEvmAddress(log.address);
      if (!this.tokens.has(token)) this.tokens.set(token, await this.readTokenInfo(log.address));
      const blockNumber = Number(log.blockNumber);
      this.transfers.push({
        txID: txIdOf(log.transactionHash),
        blockNumber,
        logIndex: Number(log.logIndex),
        timestamp: timestampOf(blockNumber),
        token,
        from: `41${fromTopic.slice(-40)}`,
        to: `41${toTopic.slice(-40)}`,
        value: BigInt(log.data === '0x' ? 0 : log.data),
      });
    }
  }

  tokenInfo(token: TronHex): TokenInfo | undefined {
    return this.tokens.get(token);
  }

  private async readTokenInfo(evmAddress: string): Promise<TokenInfo> {
    const read = async (fn: 'name' | 'symbol' | 'decimals'): Promise<unknown> => {
      try {
        const data = await this.rpc.call<string>('eth_call', [{ to: evmAddress, data: TOKEN_ABI.encodeFunctionData(fn) }, 'latest']);
        return TOKEN_ABI.decodeFunctionResult(fn, data)[0];
      } catch {
        // Not every Transfer emitter implements the optional metadata.
        return undefined;
      }
    };
    const [name, symbol, decimals] = await Promise.all([read('name'), read('symbol'), read('decimals')]);
    return { name: typeof name === 'string' ? name : '', symbol: typeof symbol === 'string' ? symbol : '', decimals: Number(decimals ?? 0) };
  }

  /** One page of an account's transfers and the fingerprint of the next page, if there is one. */
  page(q: Trc20Query): { transfers: Trc20Transfer[]; fingerprint?: string } {
    const after = q.fingerprint === undefined ? undefined : decodeFingerprint(q.fingerprint);
    const matches = (t: Trc20Transfer): boolean =>
      t.blockNumber >= q.from &&
      t.blockNumber <= q.upTo &&
      (t.from === q.address || t.to === q.address) &&
      (!q.onlyFrom || t.from === q.address) &&
      (!q.onlyTo || t.to === q.address) &&
      (q.token === undefined || t.token === q.token) &&
      (q.minTimestamp === undefined || t.timestamp >= q.minTimestamp) &&
      (q.maxTimestamp === undefined || t.timestamp <= q.maxTimestamp) &&
      (after === undefined || (q.ascending ? position(t) > after : position(t) < after));
    const ordered = q.ascending ? this.transfers : [...this.transfers].reverse();
    const found: Trc20Transfer[] = [];
    for (const t of ordered) {
      if (!matches(t)) continue;
      if (found.length === q.limit) {
        const last = found[found.length - 1] as Trc20Transfer;
        return { transfers: found, fingerprint: Buffer.from(`${last.blockNumber}:${last.logIndex}`).toString('base64url') };
      }
      found.push(t);
    }
    return { transfers: found };
  }
}
