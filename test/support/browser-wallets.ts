/**
 * Wallets for the hosted page's tests, speaking the standards real browser wallets speak, with the dev stack's
 * customer keys behind them: an EVM wallet announced through EIP-6963 (an EIP-1193 provider) and a Solana wallet
 * registered through the Wallet Standard. The page sees only the standard objects; each request crosses to Node
 * through `page.exposeFunction`, where ethers and @solana/kit sign and send on the devnets.
 */
import {
  createKeyPairFromBytes,
  createSolanaRpc,
  getAddressEncoder,
  getAddressFromPublicKey,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
} from '@solana/kit';
import { JsonRpcProvider, Wallet, isError } from 'ethers';
import type { Page } from 'playwright-core';

interface RpcError {
  code: number;
  message: string;
}
type Answer = { result: unknown } | { error: RpcError };

const ICON = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><rect width="20" height="20" rx="4" fill="#1d4ed8"/></svg>').toString('base64')}`;

export interface EvmTestWallet {
  readonly address: string;
  /** Every `eth_sendTransaction` the page asked for, in order: hashes of the transactions sent. */
  readonly sent: string[];
  /** Every method the page called, in order. */
  readonly calls: string[];
  /** The wallet's current chain (0x hex). */
  chainId(): string;
  /** The customer declines the next request that needs approval (EIP-1193 4001). */
  refuseNext(): void;
  /** While set, `wallet_switchEthereumChain` answers success and leaves the wallet where it is (the customer dismissed it). */
  stayOnChain(stay: boolean): void;
}

/**
 * An EIP-1193 provider announced through EIP-6963 as "Payrail Test Wallet", installed before the page's scripts run.
 * It starts on `startChainId` and knows only the chains in `chains` (hex id → RPC URL): switching to another answers
 * 4902 until the page adds it with `wallet_addEthereumChain`, whose RPC URL it then uses.
 */
export async function installEvmTestWallet(page: Page, options: { privateKey: string; chains: Record<string, string>; startChainId: string }): Promise<EvmTestWallet> {
  const known = new Map(Object.entries(options.chains));
  const signer = new Wallet(options.privateKey);
  let current = options.startChainId;
  let refuse = false;
  let stay = false;
  const sent: string[] = [];
  const calls: string[] = [];
  const providers = new Map<string, JsonRpcProvider>();
  const provider = () => {
    const url = known.get(current)!;
    let p = providers.get(url);
    if (!p) providers.set(url, (p = new JsonRpcProvider(url, Number(current), { staticNetwork: true })));
    return p;
  };
  const approval = () => {
    if (!refuse) return;
    refuse = false;
    throw Object.assign(new Error('User rejected the request.'), { rpcCode: 4001 });
  };

  async function handle(method: string, params: unknown[]): Promise<unknown> {
    calls.push(method);
    switch (method) {
      case 'eth_requestAccounts':
        approval();
        return [signer.address];
      case 'eth_accounts':
        return [signer.address];
      case 'eth_chainId':
        return current;
      case 'wallet_switchEthereumChain': {
        const { chainId } = params[0] as { chainId: string };
        if (!known.has(chainId)) throw Object.assign(new Error(`Unrecognized chain ID "${chainId}". Try adding the chain using wallet_addEthereumChain first.`), { rpcCode: 4902 });
        approval();
        if (!stay) current = chainId;
        return null;
      }
      case 'wallet_addEthereumChain': {
        const { chainId, rpcUrls } = params[0] as { chainId: string; rpcUrls: string[] };
        approval();
        known.set(chainId, rpcUrls[0]!);
        current = chainId;
        return null;
      }
      case 'eth_sendTransaction': {
        approval();
        const tx = params[0] as { to: string; value?: string; data?: string };
        const response = await signer.connect(provider()).sendTransaction({ to: tx.to, value: BigInt(tx.value ?? '0x0'), data: tx.data });
        sent.push(response.hash);
        return response.hash;
      }
      case 'eth_call':
      case 'eth_getBalance':
      case 'eth_blockNumber':
        return provider().send(method, params);
      default:
        throw Object.assign(new Error(`${method} is not supported by the test wallet`), { rpcCode: 4200 });
    }
  }

  await page.exposeFunction('__payrailEvmTestWallet', async (method: string, params: string): Promise<string> => {
    let answer: Answer;
    try {
      answer = { result: await handle(method, JSON.parse(params) as unknown[]) };
    } catch (err) {
      const code = (err as { rpcCode?: number }).rpcCode ?? (isError(err, 'INSUFFICIENT_FUNDS') ? -32000 : -32603);
      answer = { error: { code, message: (err as Error).message } };
    }
    return JSON.stringify(answer);
  });
  // A script as text: a function would be serialized as tsx compiled it (with helpers the page lacks).
  await page.addInitScript(`(() => {
    const bridge = window.__payrailEvmTestWallet;
    const provider = {
      async request({ method, params }) {
        const answer = JSON.parse(await bridge(method, JSON.stringify(params ?? [])));
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on() {},
      removeListener() {},
    };
    const info = Object.freeze({ uuid: '6f1d3a2e-2f6b-4c55-9a57-2b0f0e6f9c01', name: 'Payrail Test Wallet', icon: ${JSON.stringify(ICON)}, rdns: 'dev.payrail.test-wallet' });
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  })();`);
  return { address: signer.address, sent, calls, chainId: () => current, refuseNext: () => void (refuse = true), stayOnChain: (value) => void (stay = value) };
}

export interface SolanaTestWallet {
  readonly address: string;
  /** Signatures of the transactions the wallet signed and sent, in order. */
  readonly sent: string[];
  /** The next request finds the wallet gone (its extension closed or disconnected): it rejects, sending nothing. */
  disconnectNext(): void;
}

/**
 * A wallet registered through the Wallet Standard as "Payrail Test Solana Wallet", on `chain` (`solana:localnet`),
 * with `standard:connect`, `standard:events` and `solana:signAndSendTransaction`: it signs what the page built with
 * the customer's key (64-byte secret) and sends it to `rpcUrl`.
 */
export async function installSolanaTestWallet(page: Page, options: { secretKey: number[]; rpcUrl: string; chain: string }): Promise<SolanaTestWallet> {
  const keyPair = await createKeyPairFromBytes(Uint8Array.from(options.secretKey));
  const owner = await getAddressFromPublicKey(keyPair.publicKey);
  const rpc = createSolanaRpc(options.rpcUrl);
  const sent: string[] = [];
  let gone = false;
  await page.exposeFunction('__payrailSolanaTestWallet', async (transactionBase64: string): Promise<string> => {
    if (gone) {
      gone = false;
      throw new Error('WalletDisconnectedError: the wallet is disconnected');
    }
    const transaction = getTransactionDecoder().decode(Buffer.from(transactionBase64, 'base64'));
    const signed = await signTransaction([keyPair], transaction);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
    const signature = getSignatureFromTransaction(signed);
    sent.push(signature);
    return Buffer.from(signed.signatures[owner]!).toString('base64');
  });
  await page.addInitScript(`(() => {
    const bridge = window.__payrailSolanaTestWallet;
    const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));
    const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const chain = ${JSON.stringify(options.chain)};
    const icon = ${JSON.stringify(ICON)};
    const account = Object.freeze({
      address: ${JSON.stringify(owner)},
      publicKey: Uint8Array.from(${JSON.stringify(Array.from(getAddressEncoder().encode(owner)))}),
      chains: [chain],
      features: ['solana:signAndSendTransaction'],
      label: 'Customer',
      icon,
    });
    const wallet = {
      version: '1.0.0',
      name: 'Payrail Test Solana Wallet',
      icon,
      chains: [chain],
      accounts: [account],
      features: {
        'standard:connect': { version: '1.0.0', connect: () => Promise.resolve({ accounts: [account] }) },
        'standard:events': { version: '1.0.0', on: () => () => undefined },
        'solana:signAndSendTransaction': {
          version: '1.0.0',
          supportedTransactionVersions: ['legacy', 0],
          signAndSendTransaction: (...inputs) => Promise.all(inputs.map(async (input) => ({ signature: fromBase64(await bridge(toBase64(input.transaction))) }))),
        },
      },
    };
    const register = (api) => api.register(wallet);
    try {
      window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
    } catch {
      // An app that is not there yet announces itself with app-ready.
    }
    window.addEventListener('wallet-standard:app-ready', (event) => register(event.detail));
  })();`);
  return { address: owner, sent, disconnectNext: () => void (gone = true) };
}
