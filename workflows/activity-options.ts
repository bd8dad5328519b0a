import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Keeps retrying, backing off to 30 s: for work on our own systems, which comes back. */
export const retryUntilDone: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' };

/** Postgres read-model writes: quick, retried until they land. */
export const readModelOptions: ActivityOptions = { startToCloseTimeout: '10 seconds', retry: retryUntilDone };
