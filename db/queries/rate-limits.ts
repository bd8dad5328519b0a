import type { Knex } from 'knex';
import { RELAXED_COMMIT } from '../connection';

export interface RateLimitWindow {
  /** Events counted in the current window. */
  count: number;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

/** One bucket to count an event in, and the limit its count may reach before the next bucket is counted. */
export interface RateLimitCount {
  bucket: string;
  windowSeconds: number;
  limit: number;
}

// Windows are aligned on the database clock, so every API process agrees on where a window starts.
const windowStart = (window: string) => `to_timestamp(floor(extract(epoch from now()) / :${window}) * :${window})`;
const retryAfter = (window: string) => `greatest(1, ceil(extract(epoch from window_start + make_interval(secs => :${window}) - now())))::int`;

/** The `i`th bucket's upsert, counting one event in it when `source` yields a row. */
const step = (i: number, source: string) => `counted${i} as (
  insert into rate_limit_counters (bucket, window_start, count) select :bucket${i}, ${windowStart(`window${i}`)}, 1 ${source}
  on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
  returning count, ${retryAfter(`window${i}`)} as retry_after)`;

/**
 * Counts one event in each bucket's current window, in order, in one statement (atomic upserts, safe across
 * processes): a bucket is counted only while every bucket before it stayed within its limit, so an event the first
 * limit refuses uses up none of the later ones. Answers each bucket's window, null for one not counted. A relaxed
 * commit: every create of one app updates the same row, so waiting for the flush under its lock would serialise them.
 */
export async function incrementRateLimitCounters(options: { knex: Knex; counts: RateLimitCount[] }): Promise<Array<RateLimitWindow | null>> {
  const bindings: Record<string, string | number> = {};
  const steps = options.counts.map((count, i) => {
    Object.assign(bindings, { [`bucket${i}`]: count.bucket, [`window${i}`]: count.windowSeconds });
    if (i === 0) return step(i, `from ${RELAXED_COMMIT}`);
    // Counted while the bucket before stayed within its limit.
    bindings[`limitBefore${i}`] = options.counts[i - 1]!.limit;
    return step(i, `where (select count from counted${i - 1}) <= :limitBefore${i}`);
  });
  const answers = options.counts.map((_, i) => `select ${i} as step, count, retry_after from counted${i}`).join(' union all ');
  const { rows } = await options.knex.raw<{ rows: Array<{ step: number; count: number; retry_after: number }> }>(`with ${steps.join(', ')} ${answers}`, bindings);
  return options.counts.map((_, i) => {
    const row = rows.find((r) => r.step === i);
    return row ? { count: row.count, retryAfterSeconds: row.retry_after } : null;
  });
}

/** Drops windows that started over a day ago: no configured window is longer (lib/config.ts). */
export async function deleteEndedRateLimitWindows(options: { knex: Knex }): Promise<number> {
  return options.knex('rate_limit_counters').where('window_start', '<', options.knex.raw(`now() - interval '1 day'`)).delete();
}
