import assert from 'node:assert/strict';
import { arrivedTowards, type CountablePayin } from '../../domain/collecting';

const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const payment = { source_token_address: TOKEN.toLowerCase(), source_amount_units: '10000000' };
const payin = (amount: string, status: CountablePayin['status'], disposition: CountablePayin['disposition'] = null, token = TOKEN): CountablePayin => ({
  token_address: token,
  amount_units: amount,
  status,
  disposition,
});

describe('what arrived towards a payment that collects', () => {
  it('counts confirmed and confirming payins in the payment’s token, and leaves the rest to pay', () => {
    assert.deepEqual(arrivedTowards(payment, [payin('6000000', 'confirmed'), payin('1000000', 'detected')]), {
      confirmedUnits: 6_000_000n,
      confirmingUnits: 1_000_000n,
      leftUnits: 3_000_000n,
    });
  });

  it('leaves out dropped payins, other tokens, and payins that go back or are held as dust', () => {
    const ignored = [payin('1000000', 'dropped'), payin('1000000', 'confirmed', 'refund'), payin('5', 'confirmed', 'held'), payin('1000000', 'confirmed', null, '0x00000000000000000000000000000000000000aa')];
    assert.deepEqual(arrivedTowards(payment, [payin('2500000', 'confirmed', 'payment'), ...ignored]), { confirmedUnits: 2_500_000n, confirmingUnits: 0n, leftUnits: 7_500_000n });
  });

  it('never leaves less than nothing to pay', () => {
    assert.equal(arrivedTowards(payment, [payin('12000000', 'detected')]).leftUnits, 0n);
  });
});
