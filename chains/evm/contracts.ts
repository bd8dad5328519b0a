import { Interface, getCreate2Address, id, keccak256, toUtf8Bytes } from 'ethers';

// Human-readable ABI fragments for the calls and events Payrail uses at run time.

export const erc20Abi = [
  'function balanceOf(address owner) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
] as const;

export const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');
export const erc20Interface = new Interface(erc20Abi);

export const depositFactoryAbi = [
  'function addressOf(bytes32 salt) view returns (address)',
  'function sweep(bytes32 salt, address token, address to, uint256 amount)',
  'function owner() view returns (address)',
  'event Swept(bytes32 indexed salt, address indexed token, address indexed to, uint256 amount)',
] as const;

export const devnetBridgeAbi = [
  'function burn(bytes32 transferId, address token, uint256 amount, uint256 destinationChainId, address recipient)',
  'function mint(bytes32 transferId, address token, uint256 amount, uint256 sourceChainId, address recipient)',
  'function burned(bytes32 transferId) view returns (bool)',
  'function minted(bytes32 transferId) view returns (bool)',
  'event BridgeBurn(bytes32 indexed transferId, address indexed token, uint256 amount, uint256 destinationChainId, address recipient)',
  'event BridgeMint(bytes32 indexed transferId, address indexed token, uint256 amount, uint256 sourceChainId, address recipient)',
] as const;

export const priceFeedAbi = [
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
] as const;

/** The CREATE2 salt of a payment's deposit address. */
export function paymentSalt(paymentId: string): string {
  return keccak256(toUtf8Bytes(`payrail:deposit:${paymentId}`));
}

/** The deposit address `factory.addressOf(salt)` returns, computed offline. */
export function depositAddress(factory: string, salt: string, forwarderInitCodeHash: string): string {
  return getCreate2Address(factory, salt, forwarderInitCodeHash);
}
