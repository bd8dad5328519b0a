import { concat, dataLength, dataSlice, getBytes, hexlify, toBeHex, zeroPadValue } from 'ethers';

/** CCTP v2 message (Circle's published layout); the fields Iris fills in are nonce and finalityThresholdExecuted. */
export interface CctpMessage {
  version: number;
  sourceDomain: number;
  destinationDomain: number;
  nonce: string;
  sender: string;
  recipient: string;
  destinationCaller: string;
  minFinalityThreshold: number;
  finalityThresholdExecuted: number;
  messageBody: string;
}

/** CCTP v2 burn message body; Iris fills in feeExecuted and expirationBlock. Addresses are 32-byte words. */
export interface CctpBurnMessage {
  version: number;
  burnToken: string;
  mintRecipient: string;
  amount: bigint;
  messageSender: string;
  maxFee: bigint;
  feeExecuted: bigint;
  expirationBlock: bigint;
  hookData: string;
}

const MESSAGE_BODY_OFFSET = 148;
const BURN_HOOK_DATA_OFFSET = 228;

const uint = (hex: string, offset: number, bytes: number): bigint => BigInt(dataSlice(hex, offset, offset + bytes));
const word = (hex: string, offset: number): string => dataSlice(hex, offset, offset + 32);
const u32 = (n: number): string => zeroPadValue(toBeHex(n), 4);
const u256 = (n: bigint): string => zeroPadValue(toBeHex(n), 32);

export function decodeCctpMessage(message: string): CctpMessage {
  if (dataLength(message) < MESSAGE_BODY_OFFSET) throw new Error('CCTP message is shorter than its header');
  return {
    version: Number(uint(message, 0, 4)),
    sourceDomain: Number(uint(message, 4, 4)),
    destinationDomain: Number(uint(message, 8, 4)),
    nonce: word(message, 12),
    sender: word(message, 44),
    recipient: word(message, 76),
    destinationCaller: word(message, 108),
    minFinalityThreshold: Number(uint(message, 140, 4)),
    finalityThresholdExecuted: Number(uint(message, 144, 4)),
    messageBody: hexlify(getBytes(message).slice(MESSAGE_BODY_OFFSET)),
  };
}

export function encodeCctpMessage(m: CctpMessage): string {
  return concat([
    u32(m.version), u32(m.sourceDomain), u32(m.destinationDomain), m.nonce, m.sender, m.recipient, m.destinationCaller,
    u32(m.minFinalityThreshold), u32(m.finalityThresholdExecuted), m.messageBody,
  ]);
}

export function decodeCctpBurnMessage(body: string): CctpBurnMessage {
  if (dataLength(body) < BURN_HOOK_DATA_OFFSET) throw new Error('CCTP burn message is shorter than its fixed fields');
  return {
    version: Number(uint(body, 0, 4)),
    burnToken: word(body, 4),
    mintRecipient: word(body, 36),
    amount: uint(body, 68, 32),
    messageSender: word(body, 100),
    maxFee: uint(body, 132, 32),
    feeExecuted: uint(body, 164, 32),
    expirationBlock: uint(body, 196, 32),
    hookData: hexlify(getBytes(body).slice(BURN_HOOK_DATA_OFFSET)),
  };
}

export function encodeCctpBurnMessage(b: CctpBurnMessage): string {
  return concat([
    u32(b.version), b.burnToken, b.mintRecipient, u256(b.amount), b.messageSender, u256(b.maxFee), u256(b.feeExecuted),
    u256(b.expirationBlock), b.hookData,
  ]);
}
