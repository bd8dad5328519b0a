import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '../domain/errors';

/**
 * Runs a use case for an activity. A business rule's refusal (DomainError) is final: no retry can change it, so it
 * fails the activity for good with the rule's code as its type, except a refusal that passes (a price that may come
 * back, a deposit address pool being refilled). Anything else is left to the retry policy.
 */
export async function asActivity<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err.code === 'price_unavailable' || err.retryAfterSeconds !== undefined) throw ApplicationFailure.retryable(err.message, err.code);
    throw ApplicationFailure.nonRetryable(err.message, err.code);
  }
}
