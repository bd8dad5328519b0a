// Tron addresses, transaction encoding and signatures. The protobuf encoding is tronweb's own (the same code that
// builds and checks transactions on the client), so a transaction the devnet builds passes tronweb's checks and
// a transaction tronweb signs hashes to the same txID here.
import { computeAddress, Signature, SigningKey } from 'ethers';
import { TronWeb, utils } from 'tronweb';

/** Tron's hex address form: `41` + the 20 bytes of the EVM address, lowercase. */
export type TronHex = string;

const TRON_HEX = /^41[0-9a-f]{40}$/;
const EVM_HEX = /^0x[0-9a-f]{40}$/;

export class InvalidAddress extends Error {}

/** Accepts `41…` hex, base58 `T…` or `0x…` and returns `41…` hex; throws InvalidAddress otherwise. */
export function parseAddress(input: unknown): TronHex {
  if (typeof input !== 'string') throw new InvalidAddress(`invalid address: ${String(input)}`);
  const lower = input.toLowerCase();
  if (TRON_HEX.test(lower)) return lower;
  if (EVM_HEX.test(lower)) return `41${lower.slice(2)}`;
  if (utils.crypto.isAddressValid(input)) return TronWeb.address.toHex(input);
  throw new InvalidAddress(`invalid address: ${input}`);
}

export function toBase58(address: TronHex): string {
  return TronWeb.address.fromHex(address);
}

/** The address in the form a `visible` request asks for, as java-tron prints it. */
export function formatAddress(address: TronHex, visible: boolean): string {
  return visible ? toBase58(address) : address;
}

export function toEvmAddress(address: TronHex): string {
  return `0x${address.slice(2)}`;
}

export function fromEvmAddress(address: string): TronHex {
  return `41${address.slice(2).toLowerCase()}`;
}

export interface TransferContractValue { owner_address: string; to_address: string; amount: number }
/** A TRC-10 transfer: `asset_name` is the token id's UTF-8 bytes in hex (`31303030303031` for 1000001). */
export interface TransferAssetContractValue { owner_address: string; to_address: string; asset_name: string; amount: number }
export interface TriggerSmartContractValue {
  owner_address: string;
  contract_address: string;
  data?: string;
  call_value?: number;
  call_token_value?: number;
  token_id?: number;
}
export type ContractValue = TransferContractValue | TransferAssetContractValue | TriggerSmartContractValue;
export type ContractType = 'TransferContract' | 'TransferAssetContract' | 'TriggerSmartContract';

export interface RawContract {
  type: ContractType;
  parameter: { value: ContractValue; type_url: string };
  Permission_id?: number;
}
export interface RawData {
  contract: RawContract[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
  fee_limit?: number;
  data?: string;
}
export interface TronTransaction {
  visible: boolean;
  txID: string;
  raw_data: RawData;
  raw_data_hex: string;
  signature?: string[];
}

export function rawContract(type: ContractType, value: ContractValue, permissionId?: number): RawContract {
  return {
    type,
    parameter: { value, type_url: `type.googleapis.com/protocol.${type}` },
    ...(permissionId ? { Permission_id: permissionId } : {}),
  };
}

/** Encodes raw_data as protobuf (tronweb's encoder) and derives raw_data_hex and txID = sha256(raw_data). */
export function sealTransaction(rawData: RawData, visible: boolean): TronTransaction {
  const pb: unknown = utils.transaction.txJsonToPb({ visible, raw_data: rawData });
  return {
    visible,
    txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, ''),
    raw_data: rawData,
    raw_data_hex: utils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  };
}

const ADDRESS_FIELDS = ['owner_address', 'to_address', 'contract_address'] as const;

/** The transaction with its contract's addresses in the form `visible` asks for (the bytes, so txID, are unchanged). */
export function formatTransaction(tx: TronTransaction, visible: boolean): TronTransaction {
  const contract = tx.raw_data.contract.map((c) => {
    const value: Record<string, unknown> = { ...c.parameter.value };
    for (const field of ADDRESS_FIELDS) {
      if (typeof value[field] === 'string') value[field] = formatAddress(parseAddress(value[field]), visible);
    }
    // java-tron prints a TRC-10 id as text when visible, as the hex of its bytes otherwise.
    if (visible && typeof value.asset_name === 'string') value.asset_name = Buffer.from(value.asset_name, 'hex').toString('utf8');
    return { ...c, parameter: { ...c.parameter, value: value as unknown as ContractValue } };
  });
  return { ...tx, visible, raw_data: { ...tx.raw_data, contract } };
}

/** The address whose key produced `signature` (65 bytes hex, r‖s‖v) over the txID. */
export function recoverSigner(txID: string, signature: string): TronHex {
  const bytes = signature.replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{130}$/.test(bytes)) throw new Error('signature must be 65 bytes of hex');
  // java-tron accepts v as 0/1 or 27/28.
  const v = parseInt(bytes.slice(128), 16);
  const sig = Signature.from(`0x${bytes.slice(0, 128)}${(v < 27 ? v + 27 : v).toString(16).padStart(2, '0')}`);
  return fromEvmAddress(computeAddress(SigningKey.recoverPublicKey(`0x${txID}`, sig)));
}

/** Signs with a Tron private key (hex, no 0x), as tronweb's trx.sign does. */
export function signTransaction(tx: TronTransaction, privateKey: string): TronTransaction {
  return utils.crypto.signTransaction(privateKey, structuredClone(tx)) as TronTransaction;
}

export function utf8Hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}
