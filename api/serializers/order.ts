import type { OrderCallbackAttemptRow } from '../../db/tables';

export function toCallbackAttemptResource(row: OrderCallbackAttemptRow) {
  return {
    callback_id: row.callback_id,
    status: row.order_status,
    attempt: row.attempt,
    url: row.url,
    status_code: row.status_code,
    error: row.error,
    response_preview: row.response_preview,
    duration_ms: row.duration_ms,
    attempted_at: row.attempted_at.toISOString(),
  };
}
