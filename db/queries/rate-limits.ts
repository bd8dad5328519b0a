import type { Knex } from 'knex';
import { RELAXED_COMMIT } from '../connection';

export interface RateLimitWindow {
  /** Events counted in the current window. */
  count: number;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

// Windows are aligned on the database clock, so every API process agrees on where a window starts.
const WINDOW_START = 'to_timestamp(floor(extract(epoch from now()) / :window) * :window)';
const RETRY_AFTER = 'greatest(1, ceil(extract(epoch from window_start + make_interval(secs => :window) - now())))::int';

/**
 * Counts one event in `bucket`'s current window (one atomic upsert, safe across processes). A relaxed commit: every
 * create of one app updates the same row, so waiting for the flush under its lock would serialise them.
 */
export async function incrementRateLimitCounter(options: { knex: Knex; bucket: string; windowSeconds: number }): Promise<RateLimitWindow> {
  const { rows } = await options.knex.raw<{ rows: Array<{ count: number; retry_after: number }> }>(
    `insert into rate_limit_counters (bucket, window_start, count) select :bucket, ${WINDOW_START}, 1 from ${RELAXED_COMMIT}
     on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
     returning count, ${RETRY_AFTER} as retry_after`,
    { bucket: options.bucket, window: options.windowSeconds },
  );
  return { count: rows[0]!.count, retryAfterSeconds: rows[0]!.retry_after };
}

/** Drops windows that started over a day ago: no configured window is longer (lib/config.ts). */
export async function deleteEndedRateLimitWindows(options: { knex: Knex }): Promise<number> {
  return options.knex('rate_limit_counters').where('window_start', '<', options.knex.raw(`now() - interval '1 day'`)).delete();
}
