import type { Knex } from 'knex';

/**
 * Refund claim links: a refund asked for without an address waits (`awaiting_address`) for its customer to claim it
 * at its claim URL. The row keeps only the SHA-256 of the link's token (`claim_token_hash`, unique), and when the
 * address came (`claimed_at`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.text('claim_token_hash');
    t.unique(['claim_token_hash'], { indexName: 'refunds_claim_token_hash_unique' });
    t.timestamp('claimed_at', { useTz: true });
    t.check(`status <> 'awaiting_address' or (address is null and claim_token_hash is not null)`, [], 'refunds_awaiting_address_valid');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.dropChecks(['refunds_awaiting_address_valid']);
    t.dropUnique(['claim_token_hash'], 'refunds_claim_token_hash_unique');
    t.dropColumn('claimed_at');
    t.dropColumn('claim_token_hash');
  });
}
