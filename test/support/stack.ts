import { startThrowawayStack, type Stack } from '../../tools/stack/stack';

let running: Promise<Stack> | undefined;

/** Settings every end-to-end test shares; a test needing others builds its own app on the stack's services. */
export const TEST_STACK_ENV = {
  LOG_LEVEL: 'warn',
  FEE_BPS: '50',
  // Fees by basis points only, so the tests' figures stay simple; test/attacks/pricing.test.ts runs an API with
  // fixed fees. The default minimum payments apply.
  PAYMENT_FIXED_FEES: '',
  PAYMENT_TTL_SECONDS: '900',
  LATE_PAYIN_WINDOW_SECONDS: '600',
  // Test webhook receivers listen on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  // Every test client is 127.0.0.1, and many tests send bad keys on purpose. The rate-limit tests run their own
  // API instances with low limits and distinct forwarded client IPs.
  RATE_LIMIT_AUTH_FAILURES_PER_IP: '100000',
  RATE_LIMIT_LOGIN_CODES_PER_IP: '100000',
  RATE_LIMIT_KEYLESS_CREATES_PER_IP: '100000',
  // Every test registers its apps from 127.0.0.1.
  RATE_LIMIT_REGISTRATIONS_PER_IP: '100000',
  // The rebalancer looks at the floats when a test asks it to (its checkFloats signal, test/support/float.ts), so
  // files that set a float aside on purpose (payments bridging their own funds) are not refilled behind their back.
  REBALANCE_INTERVAL_MS: '3600000',
  // A completed payment's payin is swept at once, so tests read the treasuries and the books without waiting.
  SWEEP_AFTER_SECONDS: '0',
} as const;

/**
 * The one real stack of this mocha process (PostgreSQL, Temporal, two hardhat chains, worker, API; each worker of a
 * parallel run has its own), started on free ports the first time a test asks for it and stopped when the process's
 * last file is done (test/setup/root-hooks.ts). Files share it: each pays through merchants of its own
 * (test/support/merchant.ts).
 */
export function getStack(): Promise<Stack> {
  running ??= startThrowawayStack({ name: 'test', blockTimeMs: 500, env: TEST_STACK_ENV });
  return running;
}

export async function stopStack(): Promise<void> {
  if (!running) return;
  const stack = await running;
  running = undefined;
  await stack.stop();
}
