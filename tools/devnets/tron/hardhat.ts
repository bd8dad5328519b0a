// The hardhat node behind the Tron front is driven by a JSON-RPC client that keeps revert data.

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
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: RpcErrorBody };
    if (body.error) {
      const { data } = body.error;
      throw new RpcError(method, body.error.message, typeof data === 'string' ? data : data?.data);
    }
    return body.result as T;
  }
}
