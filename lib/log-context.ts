import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The subject of the work in progress (a payment, an order, a workflow), bound once where the work starts (an API
 * route's `:id`, an activity's input and workflow) and added to every log line written inside it by the logger's
 * mixin (lib/logger.ts): no call site has to pass the ids along.
 */
export interface LogContext {
  paymentId?: string;
  orderId?: string;
  workflowId?: string;
}

const current = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` added to the enclosing context for every line it logs. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return current.run({ ...current.getStore(), ...fields }, fn);
}

export const logContext = (): LogContext => current.getStore() ?? {};
