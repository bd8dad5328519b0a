import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { PreparedChainTx } from '../../chains/family';
import type { ChainTxRow } from '../../db/tables';
import { signInTurn, type ChainTxDraft } from '../../services/signing-queue';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

/** A chain id no devnet uses, so these rows never meet a real chain's. */
const CHAIN_ID = 990_001;

/** A signer whose "signature" names the nonce it was given, as a real one commits to it. */
function prepared(signer: string, chainPendingNonce = 0): PreparedChainTx {
  return {
    signer,
    to: '0x0000000000000000000000000000000000000001',
    chainPendingNonce,
    sign: (nonce) => Promise.resolve({ rawTx: `raw-${signer}-${nonce}`, txHash: `0x${randomUUID().replaceAll('-', '')}` }),
  };
}

const draft = (intentKey: string): ChainTxDraft => ({
  intent_key: intentKey,
  payment_id: null,
  purpose: 'signing queue test',
  chain_id: CHAIN_ID,
  to_address: '0x0000000000000000000000000000000000000001',
  token_address: null,
  amount_units: null,
  queue_key: null,
  action: null,
});

describe('the signing queue: one signer’s transactions signed in batches at consecutive nonces', function () {
  let services: StackServices;
  let knex: Knex;

  before(async function () {
    this.timeout(300_000);
    services = await connectServices(await getStack());
    knex = services.knex;
  });
  after(async () => {
    await knex?.('chain_txs').where({ chain_id: CHAIN_ID }).delete();
    await knex?.('signer_nonces').where({ chain_id: CHAIN_ID }).delete();
    await services?.close();
  });

  it('fifty at once get fifty consecutive nonces, each stored with the bytes signed at it', async () => {
    const signer = `signer-${randomUUID()}`;
    const rows = await Promise.all(Array.from({ length: 50 }, (_, i) => signInTurn(knex, draft(`test:${signer}:${i}`), prepared(signer, 7))));
    const nonces = rows.map((r) => Number(r.nonce)).sort((a, b) => a - b);
    assert.deepEqual(nonces, Array.from({ length: 50 }, (_, i) => 7 + i), 'from the chain’s pending nonce on, no gap, none twice');
    const stored = await knex<ChainTxRow>('chain_txs').where({ chain_id: CHAIN_ID, signer });
    assert.equal(stored.length, 50);
    for (const row of stored) assert.equal(row.raw_tx, `raw-${signer}-${row.nonce}`);
    const next = await knex('signer_nonces').where({ chain_id: CHAIN_ID, signer }).first<{ next_nonce: string }>();
    assert.equal(next.next_nonce, '57');
  });

  it('an intent stored twice in one batch: the second is refused and takes no nonce; the others go on', async () => {
    const signer = `signer-${randomUUID()}`;
    const results = await Promise.allSettled([
      signInTurn(knex, draft(`test:${signer}:a`), prepared(signer)),
      signInTurn(knex, draft(`test:${signer}:b`), prepared(signer)),
      signInTurn(knex, draft(`test:${signer}:b`), prepared(signer)),
      signInTurn(knex, draft(`test:${signer}:c`), prepared(signer)),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await knex<ChainTxRow>('chain_txs').where({ chain_id: CHAIN_ID, signer }).orderBy('nonce');
    assert.deepEqual(stored.map((r) => [r.intent_key.split(':').pop(), r.nonce]), [['a', '0'], ['b', '1'], ['c', '2']]);
  });

  it('an intent stored by an earlier batch is refused in a later one, after its batch commits, and takes no nonce', async () => {
    const signer = `signer-${randomUUID()}`;
    const first = await signInTurn(knex, draft(`test:${signer}:a`), prepared(signer));
    const [again, next] = await Promise.allSettled([signInTurn(knex, draft(`test:${signer}:a`), prepared(signer)), signInTurn(knex, draft(`test:${signer}:b`), prepared(signer))]);
    assert.equal(again.status, 'rejected');
    assert.match(String(again.reason), /stored meanwhile/);
    assert.equal(next.status, 'fulfilled');
    const stored = await knex<ChainTxRow>('chain_txs').where({ chain_id: CHAIN_ID, signer }).orderBy('nonce');
    assert.deepEqual(stored.map((r) => [r.intent_key.split(':').pop(), r.nonce, r.tx_hash]), [['a', '0', first.tx_hash], ['b', '1', next.value.tx_hash]]);
  });

  it('two signers do not wait for each other, and keep their own nonces', async () => {
    const [first, second] = [`signer-${randomUUID()}`, `signer-${randomUUID()}`];
    const rows = await Promise.all([0, 1, 2].flatMap((i) => [first, second].map((s) => signInTurn(knex, draft(`test:${s}:${i}`), prepared(s)))));
    for (const signer of [first, second]) {
      assert.deepEqual(rows.filter((r) => r.signer === signer).map((r) => r.nonce).sort(), ['0', '1', '2']);
    }
  });
});
