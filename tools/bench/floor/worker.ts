import { NativeConnection, Runtime, Worker, DefaultLogger } from '@temporalio/worker';

/**
 * The floor's worker, in its own process as Payrail's worker is, running the floor's workflows:
 * `node --import ./lib/tsx-main-thread.mjs tools/bench/floor/worker.ts <temporal address> <task queue>`. Prints `polling` once it polls.
 */
async function main(): Promise<void> {
  const [address, taskQueue] = process.argv.slice(2);
  if (!address || !taskQueue) throw new Error('usage: worker.ts <temporal address> <task queue>');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('./workflow') });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  console.log('polling');
  await running;
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
