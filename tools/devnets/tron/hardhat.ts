import { devnetRpc } from '../evm/devnet';

/** The hardhat node behind the Tron front: its JSON-RPC calls keep the revert data (`RpcError`). */
export class EvmRpc {
  constructor(readonly url: string) {}

  call<T>(method: string, params: unknown[] = []): Promise<T> {
    return devnetRpc<T>(this.url, method, params);
  }
}
