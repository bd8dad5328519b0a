// Prints whether Node's source maps are on in this (TypeScript) main thread and in a worker thread it starts.
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const main = (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled;
const thread = new Worker(path.join(__dirname, 'thread-source-maps.mjs'));
thread.once('message', (report: { sourceMapsEnabled: boolean }) => {
  console.log(JSON.stringify({ main, thread: report.sourceMapsEnabled }));
  void thread.terminate();
});
