import { getAddress, MaxUint256, zeroPadValue, type Provider } from 'ethers';
import { erc20Interface, TRANSFER_TOPIC } from '../evm/contracts';

/** An unsigned call, ready for the sign-once outbox: it signs and stores it before broadcasting. */
export interface TxRequest {
  to: string;
  data: string;
  value: bigint;
}

/** A 20-byte EVM address as the 32-byte word CCTP and LayerZero use for cross-chain addresses. */
export function addressToBytes32(address: string): string {
  return zeroPadValue(getAddress(address), 32);
}

/** The EVM address in a 32-byte cross-chain address word; throws if the high 12 bytes are not zero. */
export function bytes32ToAddress(word: string): string {
  if (!/^0x0{24}[0-9a-fA-F]{40}$/.test(word)) throw new Error(`${word} is not a left-padded EVM address`);
  return getAddress(`0x${word.slice(26)}`);
}

/** The allowance the treasury grants a bridge's contract (Circle's TokenMessengerV2, an OFT lock adapter). */
const BRIDGE_ALLOWANCE = MaxUint256;

/**
 * The approval that lets `spender` pull `amount` of `token` from `owner`, or null while its allowance covers it. A
 * bridge that pulls from the treasury is granted an unlimited allowance once (BRIDGE_ALLOWANCE) instead of one per
 * transfer: `approve` sets the allowance rather than adding to it, so two payments bridging at once would each
 * overwrite the other's approval and the second burn would revert for want of allowance.
 */
export async function approvalIfShort(
  provider: Provider,
  p: { token: string; owner: string; spender: string; amount: bigint },
  approve: (allowance: bigint) => TxRequest,
): Promise<TxRequest | null> {
  const allowance = await provider.call({ to: p.token, data: erc20Interface.encodeFunctionData('allowance', [p.owner, p.spender]) });
  return BigInt(allowance) >= p.amount ? null : approve(BRIDGE_ALLOWANCE);
}

/** What `recipient` received of `token` in the mined transaction `txHash` (its ERC-20 Transfer logs), read from the chain. */
export async function tokenReceived(provider: Provider, txHash: string, token: string, recipient: string): Promise<bigint> {
  const receipt = await provider.getTransactionReceipt(txHash);
  if (!receipt) throw new Error(`no receipt for ${txHash}`);
  let received = 0n;
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== token.toLowerCase() || log.topics[0] !== TRANSFER_TOPIC || log.topics.length < 3) continue;
    if (BigInt(log.topics[2]!) === BigInt(recipient)) received += BigInt(log.data);
  }
  return received;
}
