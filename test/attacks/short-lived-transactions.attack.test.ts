/**
 * "Signed once, stuck forever": a Solana transaction lives until its blockhash's last valid block height, a Tron one
 * until its expiration (60 s past its reference block); one that was signed, stored and not sent before an outage
 * outlasting that lifetime could never land, and its intent stayed stuck. On the real stack: a worker of its own
 * reaches the Solana and Tron devnets through a front that first drops every broadcast, then every request, until
 * the chain itself (read directly) shows the stored transactions can no longer land. Once the front is back, each
 * intent is signed again, under the same intent, and lands exactly once: the merchant is paid once, the deposit
 * swept once, and no signature of the dead transactions is on chain.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSolanaRpc, generateKeyPairSigner, type Signature } from '@solana/kit';
import { TronWeb } from 'tronweb';
import { intentKeys } from '../../domain/chain-txs';
import { parseUnits } from '../../domain/money';
import { findChainTx } from '../../db/queries/chain-txs';
import { findPaymentById } from '../../db/queries/payments';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { newMerchant } from '../support/merchant';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { solanaCustomerTransfer, solanaTokenBalance } from '../support/solana';
import { RpcFront } from '../support/rpc-front';
import { getStack } from '../support/stack';
import { newTronAddress, tronCustomerTransfer, tronUsdtBalance } from '../support/tron';
import { spawnWorker } from '../support/worker';

/** FEE_BPS=50 in the test stack. */
const afterFee = (units: bigint) => units - (units * 50n) / 10_000n;

type Outage = 'none' | 'broadcasts' | 'everything';

/**
 * An RPC endpoint between the worker and a devnet that can go down: for broadcasts only (a node whose send path is
 * gone), or for every request. Refused requests get 503, as a load balancer answers for a node that is away.
 */
class FlakyFront {
  outage: Outage = 'none';
  private readonly front: RpcFront;

  constructor(target: string, isBroadcast: (path: string, body: string) => boolean) {
    this.front = new RpcFront(target, ({ path, body }) =>
      this.outage === 'everything' || (this.outage === 'broadcasts' && isBroadcast(path, body)) ? { status: 503, body: '{"error":"service unavailable"}' } : undefined,
    );
  }

  start(): Promise<string> {
    return this.front.start();
  }

  stop(): void {
    this.front.stop();
  }
}

describe('short-lived transactions outlive an outage: signed again once they can no longer land, landing once', function () {
  this.timeout(600_000);
  let stack: Stack;
  let services: StackServices;
  let api: ExtraApi;
  let worker: ChildProcess;
  const solanaFront = () => new FlakyFront(stackChain(stack.info, 'solana').rpcUrl, (_path, body) => body.includes('"sendTransaction"'));
  const tronFront = () => new FlakyFront(stackChain(stack.info, 'tron').rpcUrl, (p) => p.startsWith('/wallet/broadcast'));
  let fronts: FlakyFront[] = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
  });
  after(async () => {
    worker?.kill('SIGKILL');
    for (const front of fronts) front.stop();
    await api?.close();
    await services?.close();
  });

  it('a Solana payout and sweep and a Tron payout and sweep each land exactly once after an outage past their lifetime', async () => {
    const solana = stackChain(stack.info, 'solana');
    const tron = stackChain(stack.info, 'tron');
    const [solanaGate, tronGate] = (fronts = [solanaFront(), tronFront()]);
    // The worker of this test reaches Solana and Tron only through the fronts; payments of its API run only on it.
    const chainsFile = path.join(tmpdir(), `chains-outage-${randomUUID()}.json`);
    const registry = JSON.parse(await readFile(stack.env.PAYRAIL_CHAINS_FILE!, 'utf8')) as { chains: Array<{ chainId: number; rpcUrl: string }> };
    const solanaUrl = await solanaGate!.start();
    const tronUrl = await tronGate!.start();
    for (const chain of registry.chains) {
      if (chain.chainId === solana.chainId) chain.rpcUrl = solanaUrl;
      if (chain.chainId === tron.chainId) chain.rpcUrl = tronUrl;
    }
    await writeFile(chainsFile, JSON.stringify(registry));
    const taskQueue = `outage-${randomUUID()}`;
    api = await startExtraApi(stack, services, { taskQueue });
    worker = spawnWorker(stack, taskQueue, { PAYRAIL_CHAINS_FILE: chainsFile });

    const solanaWallet = (await generateKeyPairSigner()).address;
    const tronWallet = newTronAddress();
    const solanaMerchant = await newMerchant(stack, services.knex, { payout: { address: solanaWallet, chainId: solana.chainId, tokenSymbol: 'USDC' } });
    const tronMerchant = await newMerchant(stack, services.knex, { payout: { address: tronWallet, chainId: tron.chainId, tokenSymbol: 'USDT' } });
    const amount = '8';
    const pay = (key: string, chainId: number, tokenSymbol: string) => createPayment(api.paymentApiUrl, key, paymentBody({ orderId: `outage-${randomUUID()}`, chainId: String(chainId), tokenSymbol, amount }));
    const solanaPayment = await pay(solanaMerchant.ordersKey, solana.chainId, 'USDC');
    const tronPayment = await pay(tronMerchant.ordersKey, tron.chainId, 'USDT');

    const rpc = createSolanaRpc(solana.rpcUrl);
    const tronWeb = new TronWeb({ fullHost: tron.rpcUrl });
    /**
     * With the send path down, waits until the intents are signed and stored (never sent); then takes the whole RPC
     * away until the chains themselves (read directly) show none of them can land any more, and brings it back.
     */
    const outlive = async (intents: Array<{ chainId: number; key: string }>) => {
      const signed = await eventually('the transfers signed and stored', 180_000, async () => {
        const rows = await Promise.all(intents.map((intent) => findChainTx({ knex: services.knex, intentKey: intent.key })));
        return rows.every((row) => row !== undefined) ? rows : undefined;
      });
      for (const row of signed) assert.equal(row.status, 'signed', `${row.intent_key} cannot have landed: its broadcasts were dropped`);
      solanaGate!.outage = 'everything';
      tronGate!.outage = 'everything';
      const lastValid = (chainId: number) => signed.filter((row) => row.chain_id === chainId).map((row) => BigInt(row.valid_until!)).reduce((a, b) => (a > b ? a : b));
      await eventually('the Solana blockhashes past their last valid block height (finalized)', 180_000, async () => ((await rpc.getBlockHeight({ commitment: 'finalized' }).send()) > lastValid(solana.chainId) ? true : undefined), 1_000);
      await eventually('the Tron head block past the expirations', 180_000, async () => {
        const head = (await tronWeb.trx.getCurrentBlock()) as { block_header: { raw_data: { timestamp: number } } };
        return BigInt(head.block_header.raw_data.timestamp) >= lastValid(tron.chainId) ? true : undefined;
      }, 1_000);
      solanaGate!.outage = 'none';
      tronGate!.outage = 'none';
      return signed;
    };

    // The send path goes down before the payins: the payouts are signed and stored, never sent.
    solanaGate!.outage = 'broadcasts';
    tronGate!.outage = 'broadcasts';
    await solanaCustomerTransfer(stack.info, 'USDC', solanaPayment.source.receiverAddress, amount);
    await tronCustomerTransfer(stack.info, tronPayment.source.receiverAddress, amount);
    const payouts = await outlive([
      { chainId: solana.chainId, key: intentKeys.payout(solanaPayment.id) },
      { chainId: tron.chainId, key: intentKeys.payout(tronPayment.id) },
    ]);

    // The sweeps are signed once the payments completed, after their payouts' finality (a second or more on either
    // devnet): each chain's send path goes down again as soon as its payout landed, so its sweep is signed and
    // stored, never sent.
    await Promise.all(
      [
        { payment: solanaPayment, gate: solanaGate! },
        { payment: tronPayment, gate: tronGate! },
      ].map(async ({ payment, gate }) => {
        const landed = async () => ((await findPaymentById({ knex: services.knex, id: payment.id }))?.status === 'payment_payout_completed' ? true : undefined);
        await eventually(`the payout of ${payment.id} to land`, 240_000, landed, 50);
        gate.outage = 'broadcasts';
      }),
    );
    await waitForStatus(api.paymentApiUrl, solanaPayment.id, 'payment_completed', 240_000);
    await waitForStatus(api.paymentApiUrl, tronPayment.id, 'payment_completed', 240_000);
    const payout = afterFee(parseUnits(amount, 6));
    assert.equal(await solanaTokenBalance(stack.info, 'USDC', solanaWallet), payout, 'the Solana merchant was paid exactly once');
    assert.equal(await tronUsdtBalance(stack.info, tronWallet), payout, 'the Tron merchant was paid exactly once');
    const sweeps = await outlive([
      { chainId: solana.chainId, key: intentKeys.sweep(solanaPayment.id) },
      { chainId: tron.chainId, key: intentKeys.sweep(tronPayment.id) },
    ]);
    await Promise.all([solanaPayment, tronPayment].map((p) => paymentRunEnded(services, p.id)));
    assert.equal(await solanaTokenBalance(stack.info, 'USDC', solanaPayment.source.receiverAddress), 0n, 'the Solana deposit was swept');
    assert.equal(await tronUsdtBalance(stack.info, tronPayment.source.receiverAddress), 0n, 'the Tron deposit was swept');
    assert.equal(await solanaTokenBalance(stack.info, 'USDC', solanaWallet), payout, 'the Solana merchant was still paid exactly once');
    assert.equal(await tronUsdtBalance(stack.info, tronWallet), payout, 'the Tron merchant was still paid exactly once');

    for (const before of [...payouts, ...sweeps]) {
      const after = (await findChainTx({ knex: services.knex, intentKey: before.intent_key }))!;
      assert.equal(after.status, 'confirmed');
      assert.notEqual(after.tx_hash, before.tx_hash, `${before.intent_key} landed as a transaction signed again`);
      assert.ok(after.replaced_tx_hashes.includes(before.tx_hash), `${before.intent_key} keeps its dead transaction's hash`);
      if (before.chain_id === solana.chainId) {
        const { value } = await rpc.getSignatureStatuses([before.tx_hash as Signature], { searchTransactionHistory: true }).send();
        assert.equal(value[0], null, `the dead Solana transaction of ${before.intent_key} never landed`);
      } else {
        const info = (await tronWeb.trx.getTransactionInfo(before.tx_hash)) as { blockNumber?: number };
        assert.equal(info.blockNumber, undefined, `the dead Tron transaction of ${before.intent_key} never landed`);
      }
    }
  });
});
