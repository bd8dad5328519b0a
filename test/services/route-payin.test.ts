import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { PaymentRow } from '../../db/tables';
import { PAYMENT_STATUSES, SETTLED_STATUSES, type PaymentStatus } from '../../domain/payment';
import type { DetectedPayin } from '../../domain/payins';
import { routePayin } from '../../services/workflows';
import { latePayinWorkflowId, paymentWorkflowId } from '../../workflows/ids';

const payin: DetectedPayin = {
  chainId: 8453,
  txHash: `0x${'ab'.repeat(32)}`,
  logIndex: 3,
  blockNumber: 120,
  tokenAddress: `0x${'11'.repeat(20)}`,
  from: `0x${'22'.repeat(20)}`,
  to: `0x${'33'.repeat(20)}`,
  amountUnits: '1500000',
};

/** Routes the payin of a payment in `status` through a client that records what it was asked to start or signal. */
async function route(status: PaymentStatus): Promise<{ routed: string; calls: string[] }> {
  const calls: string[] = [];
  const client = {
    workflow: {
      signalWithStart: (_type: string, options: { workflowId: string }) => Promise.resolve(void calls.push(`signal ${options.workflowId}`)),
      start: (_type: string, options: { workflowId: string }) => Promise.resolve(void calls.push(`start ${options.workflowId}`)),
    },
  } as unknown as Client;
  const row = {
    id: 'pay_route', app_id: 'app_route', status, order_id: null, source_chain_id: 8453, source_decimals: 6, source_amount_units: '1500000',
    source_token_symbol: 'USDC', destination_chain_id: 8453, destination_token_symbol: 'USDC', destination_address: payin.from,
    deposit_address: payin.to, display: {}, expires_at: new Date(Date.now() + 60_000), workflow_started_at: new Date(),
  } as unknown as PaymentRow;
  const routed = await routePayin({ knex: {} as Knex, temporal: { client, taskQueue: 'payrail' } }, row, payin);
  return { routed, calls };
}

describe('routePayin: which run a payin goes to', () => {
  it('a payment that still takes payins gets the payin as a signal to its run', async () => {
    for (const status of PAYMENT_STATUSES.filter((s) => !SETTLED_STATUSES.includes(s))) {
      assert.deepEqual(await route(status), { routed: 'payment', calls: [`signal ${paymentWorkflowId('pay_route')}`] }, status);
    }
  });

  it('a settled payment never gets it, even while its run is still open (its sweep waiting): a late-payin run claims it as a refund’s funding or refunds it', async () => {
    for (const status of SETTLED_STATUSES) {
      assert.deepEqual(await route(status), { routed: 'late-payin', calls: [`start ${latePayinWorkflowId(payin)}`] }, status);
    }
  });
});
