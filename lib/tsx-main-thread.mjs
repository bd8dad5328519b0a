// How a worker process loads TypeScript: `node --import ./lib/tsx-main-thread.mjs <entry>.ts` loads tsx as
// `--import tsx` does, in the main thread only. Node starts every worker thread with the process's flags: under
// `--import tsx` the Temporal SDK's workflow thread loads tsx too, which turns Node's source maps on there. That thread
// runs JavaScript only (the SDK's, and its webpack bundle of workflows/), and the SDK records a stack trace for every
// promise a workflow creates (for the Temporal UI's stack-trace query): with Node's source maps on, workflow code
// costs about a third more CPU (docs/architecture.md, "What a payment run costs Temporal").
import { isMainThread } from 'node:worker_threads';

if (isMainThread) await import('tsx');
