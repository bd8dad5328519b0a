/** TON payout addresses at the merchant API: every form wallets show is taken and stored raw; malformed ones are 400s. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import type { Stack } from '../../tools/stack/stack';
import { TON_DEVNET_CHAIN } from '../../tools/devnets/ton/family';
import { assertErrorEnvelope } from '../api/helpers';
import { request } from '../support/http';
import { getStack } from '../support/stack';
import { bearer, login, register, registerBody, type Session } from './helpers';

describe('TON payout addresses (merchant API)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let api: string;
  let dev: Session;
  const address = WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(randomBytes(32)).publicKey }).address;
  const raw = address.toRawString();
  const payout = (a: unknown, tokenSymbol = 'TON') => registerBody({ payout: { chainId: String(TON_DEVNET_CHAIN.chainId), tokenSymbol, address: a } });

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    api = stack.info.merchantApiUrl;
    dev = await login(api, stack.info.mailSinkUrl!);
  });

  it('takes raw and user-friendly forms (bounceable or not, base64url or base64) and stores the raw form', async () => {
    const forms = [raw, raw.toUpperCase().replace(/^0:/, '0:'), address.toString(), address.toString({ bounceable: false }), address.toString({ urlSafe: false }), ` ${address.toString()} `];
    for (const [i, form] of forms.entries()) {
      const app = await register(api, dev.token, payout(form, i % 2 ? 'USDT' : 'TON'));
      assert.deepEqual(app.payout, { chainId: '607', tokenSymbol: i % 2 ? 'USDT' : 'TON', address: raw }, form);
    }
  });

  it('answers malformed TON addresses with 400 naming payout.address', async () => {
    const friendly = address.toString();
    const flipped = friendly.slice(0, 10) + (friendly[10] === 'A' ? 'B' : 'A') + friendly.slice(11);
    const bad: Array<[string, unknown]> = [
      ['checksum broken', flipped],
      ['friendly, one character short', friendly.slice(0, -1)],
      ['raw, 63 hex digits', raw.slice(0, -1)],
      ['raw, workchain 1', `1:${raw.slice(2)}`],
      ['raw without workchain', raw.slice(2)],
      ['raw, non-hex digit', `${raw.slice(0, -1)}g`],
      ['an EVM address', '0x000000000000000000000000000000000000dEaD'],
      ['a Solana address', '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'],
      ['not a string', 607],
      ['empty', ''],
    ];
    for (const [label, value] of bad) {
      const res = await request(`${api}/register`, { headers: bearer(dev.token), body: payout(value) });
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'invalid_request', label);
      assert.ok(error.details?.some((d) => d.path === 'payout.address'), `${label}: ${res.text}`);
    }
  });
});
