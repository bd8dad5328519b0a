import { getAddress, zeroPadValue } from 'ethers';

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
