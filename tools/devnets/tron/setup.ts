// The devnet's starting state: fixed treasury and customer keys, their TRX, and USDT (TestStablecoin, 6 decimals)
// minted to them by Tron transactions the treasury signs, so even the mints show up as Tron transactions.
import { HDNodeWallet, Interface } from 'ethers';
import type { CompiledContract } from '../evm/compile';
import type { KnownContract } from './api';
import { MAX_FEE_LIMIT_SUN, type TronChain } from './chain';
import { fromEvmAddress, rawContract, signTransaction, toBase58, toEvmAddress, type TronHex } from './codec';

/** Tron mainnet's chain id (0x2b6653dc), used as the hardhat chain id. */
export const TRON_CHAIN_ID = 728126428;
const SUN_PER_TRX = 1_000_000n;
export const USDT_DECIMALS = 6;

const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const TREASURY_TRX = 1_000_000n;
const CUSTOMER_TRX = 10_000n;
const TREASURY_USDT = 1_000_000n;
const CUSTOMER_USDT = 10_000n;
const CUSTOMER_TRC10 = 1_000_000n;
const TRC10_DECIMALS = 6;

export interface TronAccount {
  /** Base58 (T…). */
  address: string;
  /** Hex without 0x, as tronweb takes it. */
  privateKey: string;
}

/** Account `index` of the hardhat mnemonic on Tron's BIP-44 path (coin type 195), as tronweb's fromMnemonic derives it. */
function tronAccount(index: number): TronAccount & { hex: TronHex } {
  const wallet = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, `m/44'/195'/0'/0/${index}`);
  const hex = fromEvmAddress(wallet.address);
  return { hex, address: toBase58(hex), privateKey: wallet.privateKey.slice(2) };
}

export interface DevnetState {
  usdt: TronHex;
  treasury: TronAccount;
  customer: TronAccount;
  /** Assets the customer holds besides TRX and USDT, as any Tron wallet does: another TRC-20 (TUSD) and a TRC-10. */
  otherAssets: { TUSD: { address: string; decimals: number }; TRC10: { id: string; decimals: number } };
}

/** `stablecoin`: TestStablecoin as tools/devnets/evm/compile.ts builds it. */
export async function setupDevnet(chain: TronChain, stablecoin: CompiledContract, contracts: Map<TronHex, KnownContract>): Promise<DevnetState> {
  const treasury = tronAccount(0);
  const customer = tronAccount(1);
  await chain.setBalance(treasury.hex, TREASURY_TRX * SUN_PER_TRX);
  await chain.setBalance(customer.hex, CUSTOMER_TRX * SUN_PER_TRX);

  const token = new Interface(stablecoin.abi);
  // The treasury's first transaction, so the USDT address is the same on every start.
  const usdt = await chain.deploy(treasury.hex, stablecoin.bytecode + token.encodeDeploy(['Tether USD', 'USDT', USDT_DECIMALS]).slice(2));
  contracts.set(usdt, { name: 'TestStablecoin', abi: stablecoin.abi, origin: treasury.hex });

  // Another stablecoin nobody configures, which the customer holds as a wallet holds many TRC-20s.
  const tusd = await chain.deploy(treasury.hex, stablecoin.bytecode + token.encodeDeploy(['TrueUSD', 'TUSD', USDT_DECIMALS]).slice(2));
  contracts.set(tusd, { name: 'TestStablecoin', abi: stablecoin.abi, origin: treasury.hex });

  const mint = async (contract: TronHex, to: TronHex, whole: bigint): Promise<string> => {
    const data = token.encodeFunctionData('mint', [toEvmAddress(to), whole * 10n ** BigInt(USDT_DECIMALS)]).slice(2);
    const tx = await chain.buildTransaction(
      rawContract('TriggerSmartContract', { owner_address: treasury.hex, contract_address: contract, data }),
      MAX_FEE_LIMIT_SUN,
    );
    return chain.broadcast(signTransaction(tx, treasury.privateKey));
  };
  const mints = [await mint(usdt, treasury.hex, TREASURY_USDT), await mint(usdt, customer.hex, CUSTOMER_USDT), await mint(tusd, customer.hex, CUSTOMER_USDT)];
  await chain.mine();
  for (const txID of mints) {
    const outcome = chain.minedTransaction(txID, chain.head)?.mined?.outcome;
    if (outcome !== 'SUCCESS') throw new Error(`stablecoin mint ${txID} ended ${outcome ?? 'unmined'}`);
  }
  const trc10 = chain.issueAsset(customer.hex, { name: 'DevnetToken', abbr: 'DEV', precision: TRC10_DECIMALS, totalSupply: CUSTOMER_TRC10 * 10n ** BigInt(TRC10_DECIMALS) });
  const strip = ({ address, privateKey }: TronAccount): TronAccount => ({ address, privateKey });
  return {
    usdt,
    treasury: strip(treasury),
    customer: strip(customer),
    otherAssets: { TUSD: { address: toBase58(tusd), decimals: USDT_DECIMALS }, TRC10: { id: trc10.id, decimals: TRC10_DECIMALS } },
  };
}
