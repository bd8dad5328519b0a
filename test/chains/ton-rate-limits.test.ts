/**
 * toncenter's request limits, as toncenter documents them (docs.ton.org, "Rate limits"): a key is held to its plan's
 * requests a second, a caller without a key to one, and a request above the limit is answered 429. The TON devnet
 * enforces them when started with API keys; the TON adapter paces every request it makes (v2 JSON-RPC through
 * `TonClient` and its own block reads) to its configured rate, so a scan of many blocks, the get-method calls that
 * record new deposits' accounts, and the reads around them never meet a 429.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { TonClient, WalletContractV5R1, toNano } from '@ton/ton';
import { TonAdapter } from '../../chains/ton/adapter';
import { RequestPacer } from '../../chains/ton/toncenter';
import type { TonChainConfig } from '../../chains/ton/config';
import type { DepositAccounts } from '../../chains/family';
import { chainRegistrySchema } from '../../chains/registry';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { startTonDevnet, type TonDevnet } from '../../tools/devnets/ton';
import { payTon, tonPayer } from '../support/ton';

const KEY = 'payrail-test-key';
/** The customer's wallet app has a key of its own: its requests take nothing of Payrail's allowance. */
const WALLET_KEY = 'wallet-app-key';
/** The devnet holds the key to this plan's rate (toncenter's Free plan). */
const PLAN_REQUESTS_PER_SECOND = 10;

describe('toncenter request limits: the TON devnet enforces them, the TON adapter stays within them', function () {
  this.timeout(120_000);
  let devnet: TonDevnet;

  before(async () => {
    devnet = await startTonDevnet({ port: 0, blockTimeMs: 400, apiKeys: { [KEY]: PLAN_REQUESTS_PER_SECOND, [WALLET_KEY]: PLAN_REQUESTS_PER_SECOND } });
  });
  after(async () => devnet?.stop());

  const call = (headers: Record<string, string>) =>
    fetch(devnet.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMasterchainInfo', params: {} }) });

  it('answers 429 "Ratelimit exceed" above a key’s rate and above one a second without a key, 401 for an unknown key', async () => {
    const burst = await Promise.all(Array.from({ length: PLAN_REQUESTS_PER_SECOND + 5 }, () => call({ 'X-API-Key': KEY })));
    const limited = burst.filter((res) => res.status === 429);
    assert.equal(burst.length - limited.length, PLAN_REQUESTS_PER_SECOND, 'the plan’s requests in the second go through');
    assert.deepEqual(await limited[0]!.json(), { ok: false, result: 'Ratelimit exceed', code: 429 });

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const keyless = await Promise.all([call({}), call({})]);
    assert.deepEqual(keyless.map((res) => res.status).sort(), [200, 429], 'one request a second without a key');

    const unknown = await call({ 'X-API-Key': 'not-a-key' });
    assert.equal(unknown.status, 401);
    assert.deepEqual(await unknown.json(), { ok: false, error: 'API key does not exist', code: 401 });
  });

  it('spaces each turn from when the one before it went: turns due while the process stalls still go out apart', async () => {
    const pacer = new RequestPacer(PLAN_REQUESTS_PER_SECOND);
    const intervalMs = 1000 / PLAN_REQUESTS_PER_SECOND;
    const gone: number[] = [];
    const turns = Array.from({ length: 4 }, () => pacer.turn().then(() => gone.push(Date.now())));
    // The process stalls past the second, third and fourth turns' times (as a long garbage collection does).
    const stallUntil = Date.now() + 4 * intervalMs;
    while (Date.now() < stallUntil);
    await Promise.all(turns);
    const gaps = gone.slice(1).map((at, i) => at - gone[i]!);
    // A timer may fire a millisecond early.
    assert.ok(gaps.every((gap) => gap >= intervalMs - 1), `turns ${gaps.join(', ')} ms apart, each at least ${intervalMs} ms`);
  });

  it('paces a scan of many blocks, the new deposits’ account lookups and the reads around it to the key’s rate: no request is refused', async () => {
    const treasuryKey = await mnemonicToPrivateKey(devnet.treasury.mnemonic);
    const registry = chainRegistrySchema.parse({
      chains: [
        {
          family: 'ton', chainId: 607, name: 'TON (devnet)', rpcUrl: devnet.endpoint, apiKey: KEY, requestsPerSecond: PLAN_REQUESTS_PER_SECOND,
          confirmations: 1, finalityDepth: 1, tokens: {}, nativeCurrency: { symbol: 'TON', decimals: 9 },
        },
      ],
    });
    const adapter = new TonAdapter(registry.chains[0] as TonChainConfig, { depositSeed: randomBytes(32), treasurySecretKey: treasuryKey.secretKey });
    const payer = await tonPayer(devnet.endpoint, devnet.customer.mnemonic);
    const wallet = new TonClient({ endpoint: devnet.endpoint, apiKey: WALLET_KEY });
    const customer = { ...payer, wallet: wallet.open(WalletContractV5R1.create({ workchain: 0, publicKey: payer.key.publicKey })), client: wallet };
    const deposits = Array.from({ length: 12 }, () => ({ paymentId: randomUUID(), tokenAddress: NATIVE_TOKEN_ADDRESS }));
    // The deposits' accounts as the watcher records them (services/payins.ts keeps them in PostgreSQL).
    const recorded = new Map<string, { address: string; tokenAddress: string }>();
    const unrecorded = deposits.map((d) => ({ address: adapter.depositAddress(d.paymentId), tokenAddress: d.tokenAddress }));
    const accounts: DepositAccounts = {
      unrecorded: () => Promise.resolve(unrecorded.splice(0)),
      record: (found) => {
        for (const { address, accounts: list } of found) for (const a of list) recorded.set(a.account, { address, tokenAddress: a.tokenAddress });
        return Promise.resolve();
      },
      find: (list) => Promise.resolve(new Map(list.flatMap((a) => (recorded.has(a) ? [[a, recorded.get(a)!] as const] : [])))),
    };
    let requests = 0;
    const paid = adapter.depositAddress(deposits[5]!.paymentId);

    const refusals: number[] = [];
    const originalFetch = globalThis.fetch;
    // Counted: the adapter's requests to this devnet (other suites of the process may fetch elsewhere meanwhile).
    const base = new URL(devnet.endpoint).origin;
    globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
      const url = args[0] instanceof Request ? args[0].url : String(args[0]);
      const counted = url.startsWith(base) && !(JSON.stringify(args[1]?.headers ?? {}).includes(WALLET_KEY));
      if (counted) requests++;
      const res = await originalFetch(...args);
      if (counted && res.status === 429) refusals.push(Date.now());
      return res;
    };
    try {
      const fromBlock = await adapter.head();
      await payTon(customer, paid, toNano('0.7'));
      const started = Date.now();
      requests = 0;
      let payins: Awaited<ReturnType<typeof adapter.scanPayins>> = [];
      for (let scans = 0; scans < 3 && payins.length === 0; scans++) {
        const toBlock = await adapter.head();
        payins = await adapter.scanPayins({ fromBlock, toBlock, accounts, heartbeat: () => undefined });
      }
      const elapsedMs = Date.now() - started;
      assert.equal(payins.length, 1, 'the payin was found');
      assert.equal(payins[0]!.to, paid);
      assert.deepEqual(refusals, [], 'toncenter refused none of the adapter’s requests');
      // Every request waited its turn: a tenth of a second (and a tenth more) apart.
      assert.ok(requests > PLAN_REQUESTS_PER_SECOND, `${requests} requests, more than a second's worth`);
      assert.ok(elapsedMs >= ((requests - 1) * 1000) / PLAN_REQUESTS_PER_SECOND, `the scan was paced (${requests} requests in ${elapsedMs} ms)`);
    } finally {
      globalThis.fetch = originalFetch;
      adapter.destroy();
    }
  });
});
