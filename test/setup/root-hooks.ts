import { stopStack } from '../support/stack';
import { stopTestEnv } from '../support/temporal';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await Promise.all([stopStack(), stopTestEnv()]);
  },
};
