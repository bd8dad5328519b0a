import type { Knex } from 'knex';
import { deleteStaleLoginCodes } from '../db/queries/developers';
import { deleteEndedRateLimitWindows } from '../db/queries/rate-limits';
import { deleteExpiredDashboardSessions } from '../db/queries/sessions';
import type { Logger } from '../lib/logger';

/**
 * Deletes ended rate-limit windows, stale login codes and expired dashboard sessions every `intervalMs`. Each API process runs it; the
 * deletes are idempotent, so several at once do no harm.
 */
export function startHousekeeping(options: { knex: Knex; log: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  const { knex, log } = options;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = Promise.all([deleteEndedRateLimitWindows({ knex }), deleteStaleLoginCodes({ knex }), deleteExpiredDashboardSessions({ knex })]).then(
      () => undefined,
      (err: unknown) => log.warn({ err }, 'housekeeping failed'),
    );
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
