// The hardhat node behind the Tron front is driven by a JSON-RPC client that keeps revert data.
import { FetchRequest } from 'ethers';
// Its requests go over Node's `http` with kept-alive connections, as the worker's do: the front makes several calls to
// the node for each Tron request and block, and through `fetch` the devnet and its node took twice the CPU.
import '../../../chains/evm/http';

export class RpcError extends Error {
  /** Revert data (0x…) when the node reports a reverted call. */
  readonly data: string | undefined;
  constructor(method: string, message: string, data: string | undefined) {
    super(`${method} failed: ${message}`);
    this.data = data;
  }
}

interface RpcErrorBody { message: string; data?: string | { data?: string } }

export class EvmRpc {
  constructor(readonly url: string) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const request = new FetchRequest(this.url);
    request.body = { jsonrpc: '2.0', id: 1, method, params };
    const body = (await request.send()).bodyJson as { result?: T; error?: RpcErrorBody };
    if (body.error) {
      const { data } = body.error;
      throw new RpcError(method, body.error.message, typeof data === 'string' ? data : data?.data);
    }
    return body.result as T;
  }
}
