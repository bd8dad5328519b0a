import type { Provider } from 'ethers';
import type { PreparedChainTx } from '../family';
import type { CctpConfig, OftConfig } from './config';
import type { TxRequest } from './tx';

/**
 * A chain's side of the bridges: what CCTP and OFT need of it, and nothing more. A family whose chains bridges
 * reach gives its adapters one (`ChainAdapter.bridgeEndpoint`; the EVM family's adapter does).
 */
export interface BridgeEndpoint {
  /** Circle CCTP v2 on the chain, when its chains-file entry configures it. */
  readonly cctp?: CctpConfig;
  /** The chain's OFTs by token symbol. */
  readonly oft: Readonly<Record<string, OftConfig>>;
  /** The configured token's contract by symbol. */
  tokenAddress(symbol: string): string | undefined;
  /** Reads: allowances, OFT quotes, a send's receipt, a delivery's logs. */
  readonly provider: Provider;
  /** The treasury: it approves, burns and sends on the source chain, receives and alone may mint on the destination. */
  treasuryAddress(): string;
  /** A contract call from the treasury, for the sign-once outbox (`TxWouldRevert` when the estimate reverts). */
  prepareCall(call: TxRequest): Promise<PreparedChainTx>;
}

/** The bridge endpoints of a process's chains (`ChainAdapters`): undefined for a chain no bridge reaches. */
export interface BridgeEndpoints {
  bridgeEndpoint(chainId: number): BridgeEndpoint | undefined;
}
