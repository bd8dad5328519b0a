// A worker thread that runs JavaScript only, as the Temporal SDK's workflow thread does: reports whether Node's
// source maps are on in it.
import { parentPort } from 'node:worker_threads';

parentPort.postMessage({ sourceMapsEnabled: process.sourceMapsEnabled });
