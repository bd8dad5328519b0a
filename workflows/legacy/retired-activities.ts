import type { ChainTxIntent } from '../../domain/chain-txs';

/**
 * Activities of recorded runs that no worker serves any more: their histories replay (replay never executes an
 * activity), and no production run can reach them. The DevnetBridge burn and mint only ever ran on devnets
 * (PATCHES.realBridges).
 */
export interface RetiredBridgeActivities {
  burnForBridge(input: ChainTxIntent & { paymentId: string; tokenSymbol: string; amountUnits: string; destinationChainId: number }): Promise<{ intentKey: string; txHash: string }>;
  mintFromBridge(input: ChainTxIntent & { paymentId: string; tokenSymbol: string; amountUnits: string; sourceChainId: number }): Promise<{ intentKey: string; txHash: string }>;
}
