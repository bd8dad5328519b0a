import { stopStack } from '../support/stack';
import { quietSdkLogs, stopTestEnv } from '../support/temporal';

export const mochaHooks = {
  /** The SDK runtime is process-wide: set it up quiet before any suite's worker starts it with its defaults. */
  beforeAll() {
    quietSdkLogs();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await Promise.all([stopStack(), stopTestEnv()]);
  },
};
