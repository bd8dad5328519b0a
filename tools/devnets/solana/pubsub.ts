// The RPC's websocket subscriptions on the same port as HTTP, so kit's rpcSubscriptions (sendAndConfirmTransaction,
// airdropFactory, account watchers) work unmodified: signature, account, slot and root notifications.
import type { Server } from 'node:http';
import type { Address } from '@solana/kit';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { sameAccount, SYSTEM_PROGRAM, type AccountState } from './accounts';
import { invalidParams, RpcError, RPC_METHOD_NOT_FOUND } from './errors';
import type { Commitment, Ledger } from './ledger';
import { addressOf, answer, commitmentOf, configAt, encodingOf, stringAt, toJson, type Encoding, type JsonRpcRequest, type SolanaRpc } from './rpc';

type Subscription = { socket: WebSocket } & (
  | { kind: 'signature'; signature: string; commitment: Commitment }
  | { kind: 'account'; address: Address; commitment: Commitment; encoding: Encoding; last: AccountState | null }
  | { kind: 'slot' }
  | { kind: 'root' }
);

const CLOSED_ACCOUNT: AccountState = { lamports: 0n, data: new Uint8Array(), owner: SYSTEM_PROGRAM, executable: false };

export class PubSub {
  private nextId = 0;
  private readonly subscriptions = new Map<number, Subscription>();

  constructor(private readonly ledger: Ledger, private readonly rpc: SolanaRpc, private readonly log: (line: string) => void) {
    ledger.onEvent((event) => {
      for (const [id, sub] of this.subscriptions) {
        try {
          if (event.kind === 'slot' && sub.kind === 'slot') this.notify(id, sub, { parent: event.slot - 1, root: ledger.slotAt('finalized'), slot: event.slot });
          else if (event.kind === 'slot' && sub.kind === 'root') this.notify(id, sub, ledger.slotAt('finalized'));
          else this.check(id, sub);
        } catch (err) {
          // A notification that cannot be encoded (base58 of a large account) ends that subscription, not the chain.
          this.log(`dropping subscription ${id}: ${(err as Error).message}`);
          this.subscriptions.delete(id);
        }
      }
    });
  }

  attach(server: Server): WebSocketServer {
    const wss = new WebSocketServer({ server });
    wss.on('connection', (socket) => {
      socket.on('message', (data: RawData) => void this.receive(socket, data));
      socket.on('close', () => {
        for (const [id, sub] of this.subscriptions) if (sub.socket === socket) this.subscriptions.delete(id);
      });
    });
    return wss;
  }

  private async receive(socket: WebSocket, data: RawData): Promise<void> {
    let request: JsonRpcRequest;
    try {
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      request = JSON.parse(bytes.toString('utf8')) as JsonRpcRequest;
    } catch {
      socket.send(toJson({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
      return;
    }
    const subscribed: number[] = [];
    const response = await answer((method, params) => {
      const id = this.subscribe(socket, method, params);
      if (typeof id === 'number') subscribed.push(id);
      return id;
    }, request, this.log);
    socket.send(toJson(response));
    // A signature that already landed is reported at once, after the subscription id.
    for (const id of subscribed) {
      const sub = this.subscriptions.get(id);
      if (sub !== undefined) this.check(id, sub);
    }
  }

  private subscribe(socket: WebSocket, method: string, params: unknown[]): number | boolean {
    this.ledger.tick();
    if (method.endsWith('Unsubscribe')) {
      const id = params[0];
      const sub = typeof id === 'number' ? this.subscriptions.get(id) : undefined;
      if (sub === undefined || sub.socket !== socket || `${sub.kind}Unsubscribe` !== method) throw invalidParams('Invalid subscription id.');
      this.subscriptions.delete(id as number);
      return true;
    }
    let sub: Subscription;
    switch (method) {
      case 'signatureSubscribe':
        sub = { socket, kind: 'signature', signature: stringAt(params, 0, 'signature'), commitment: commitmentOf(configAt(params, 1)) };
        break;
      case 'accountSubscribe': {
        const config = configAt(params, 1);
        const address = addressOf(params[0]);
        const commitment = commitmentOf(config);
        const encoding = encodingOf(config, 'base58', ['base58', 'base64', 'jsonParsed']);
        sub = { socket, kind: 'account', address, commitment, encoding, last: this.ledger.account(address, commitment) };
        break;
      }
      case 'slotSubscribe':
        sub = { socket, kind: 'slot' };
        break;
      case 'rootSubscribe':
        sub = { socket, kind: 'root' };
        break;
      default:
        throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
    }
    const id = this.nextId++;
    this.subscriptions.set(id, sub);
    return id;
  }

  /** Signature and account subscriptions fire when what their commitment level sees has changed. */
  private check(id: number, sub: Subscription): void {
    if (sub.kind === 'signature') {
      const record = this.ledger.transaction(sub.signature, sub.commitment);
      if (record === null) return;
      this.subscriptions.delete(id);
      this.notify(id, sub, { context: { slot: this.ledger.slotAt(sub.commitment) }, value: { err: record.err } });
    } else if (sub.kind === 'account') {
      const now = this.ledger.account(sub.address, sub.commitment);
      if (sameAccount(now, sub.last)) return;
      sub.last = now;
      this.notify(id, sub, { context: { slot: this.ledger.slotAt(sub.commitment) }, value: this.rpc.accountJson(now ?? CLOSED_ACCOUNT, sub.encoding, undefined) });
    }
  }

  private notify(id: number, sub: Subscription, result: unknown): void {
    sub.socket.send(toJson({ jsonrpc: '2.0', method: `${sub.kind}Notification`, params: { result, subscription: id } }));
  }
}
