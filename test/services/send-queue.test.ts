import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { enqueueChainTx } from '../../db/queries/chain-txs';
import type { ChainTxRow } from '../../db/tables';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { createLogger } from '../../lib/logger';
import { createChainTxService, type IntentCheck } from '../../services/chain-txs';
import { TransferRefused } from '../../services/money-terms';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

/** A chain of the stack: the waits read its head. */
const CHAIN_ID = 8453;

const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

describe('a send queue: the waits behind its transaction in flight', function () {
  this.timeout(120_000);
  let services: StackServices;
  let knex: Knex;
  const queueKey = `deposit:${randomUUID()}`;
  const inFlight = `sweep:${randomUUID()}`;
  const queued = `refund:${randomUUID()}`;

  before(async function () {
    this.timeout(300_000);
    services = await connectServices(await getStack());
    knex = services.knex;
  });
  after(async () => {
    await knex?.('chain_txs').where({ queue_key: queueKey }).delete();
    await knex?.('chain_tx_queue').where({ queue_key: queueKey }).delete();
    await services?.close();
  });

  it('a queued intent behind the same transaction in flight reads nothing of its own; once that one left, its wait takes its turn', async () => {
    const txs = createChainTxService({ knex, chains: services.chains, log: createLogger('silent', 'test') });
    // In flight on the queue, sent at a block the chain is far from: every check of it answers "not yet" without the chain.
    await knex<ChainTxRow>('chain_txs').insert({
      intent_key: inFlight, payment_id: null, purpose: 'send queue test', chain_id: CHAIN_ID, signer: randomAddress(), nonce: '0', to_address: randomAddress(),
      token_address: null, amount_units: null, raw_tx: '0x00', tx_hash: `0x${randomBytes(32).toString('hex')}`, status: 'signed', sent_at_block: String(2 ** 40),
      queue_key: queueKey, action: null, replaced_tx_hashes: [],
    });
    // Queued behind it, on terms the database refuses (no payment): its turn, when it comes, ends in that refusal.
    const to = randomAddress();
    await enqueueChainTx({
      knex,
      row: {
        intent_key: queued, chain_id: CHAIN_ID, queue_key: queueKey, payment_id: null, purpose: 'send queue test', priority: 2,
        request: { intentKey: queued, paymentId: null, chainId: CHAIN_ID, tokenAddress: NATIVE_TOKEN_ADDRESS, recipient: to, amountUnits: '1', from: 'deposit' },
        action: { kind: 'transfer', tokenAddress: NATIVE_TOKEN_ADDRESS, to, amountUnits: '1' },
      },
    });

    const first = await txs.checkIntent(queued, 'confirmations');
    assert.ok(!('txHash' in first));
    assert.deepEqual({ chainId: first.chainId, ...first.queued }, { chainId: CHAIN_ID, queueKey, ahead: inFlight });

    // The same transaction still in flight: the check reads neither the intent's row nor its place on the queue.
    const statements: unknown[][] = [];
    const count = (query: { bindings?: unknown[] }) => statements.push(query.bindings ?? []);
    knex.on('query', count);
    let again: IntentCheck;
    try {
      again = await txs.checkIntent(queued, 'confirmations', first);
    } finally {
      knex.removeListener('query', count);
    }
    assert.ok(!('txHash' in again));
    assert.deepEqual(again.queued, first.queued);
    assert.deepEqual(statements.filter((bindings) => bindings.includes(queued)), []);

    // Once it has left, the wait looks at the queue again and takes its turn: the terms are read, and refused.
    await knex('chain_txs').where({ intent_key: inFlight }).update({ status: 'confirmed', block_number: '1' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await assert.rejects(txs.checkIntent(queued, 'confirmations', again), TransferRefused);
  });
});
