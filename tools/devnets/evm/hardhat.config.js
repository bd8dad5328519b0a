// One devnet chain for `hardhat node`; tools/devnets/evm/devnet.ts starts one node per chain with this config.
const path = require('node:path');

const chainId = Number(process.env.DEVNET_CHAIN_ID);
const blockTimeMs = Number(process.env.DEVNET_BLOCK_TIME_MS ?? 1000);
if (!Number.isInteger(chainId) || chainId <= 0) throw new Error('DEVNET_CHAIN_ID must be set to a positive integer');

// devnet.ts hands us a stdin pipe that closes when it dies, however it dies (even SIGKILL): don't outlive it.
if (process.env.DEVNET_EXIT_WITH_PARENT === 'true') {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}

/** @type import('hardhat/config').HardhatUserConfig */
module.exports = {
  // Contracts are compiled and deployed by devnet.ts; an empty project root under var/ keeps hardhat from
  // compiling or writing anything in the repo.
  paths: { root: path.resolve(__dirname, '../../../var/devnet/hardhat') },
  networks: {
    hardhat: {
      chainId,
      // Automine so transactions land at once, plus interval blocks so confirmations accrue like on a live chain.
      mining: { auto: true, interval: blockTimeMs },
      // Several blocks a second would otherwise push block timestamps ahead of the wall clock.
      allowBlocksWithSameTimestamp: true,
      // Default hardhat mnemonic; devnet.ts derives the treasury, customer and merchant keys from it.
      accounts: { count: 10, accountsBalance: (10n ** 24n).toString() },
      // Per-request logging costs time, so it is on only when devnet.ts has somewhere to write it.
      loggingEnabled: process.env.DEVNET_LOGGING === 'true',
    },
  },
};
