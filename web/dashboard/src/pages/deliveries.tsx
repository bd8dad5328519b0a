import { useEffect, useState } from 'preact/hooks';
import { api, useNewestRequest, type DeliveryPage } from '../api';
import { ErrorNote, NoApp, when } from '../format';
import type { PageProps } from '../main';
import { Link } from '../router';

export function DeliveriesPage({ app }: PageProps) {
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const [shown, setShown] = useState<DeliveryPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The first page of the filters and every further page: a newer one aborts the one in flight.
  const newest = useNewestRequest();
  const query = (cursor?: string) => {
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (eventType) q.set('eventType', eventType);
    if (cursor) q.set('cursor', cursor);
    return q.toString();
  };
  useEffect(() => {
    if (!app) return;
    setShown(null);
    setError(null);
    api<DeliveryPage>(`/apps/${app.appId}/deliveries?${query()}`, { signal: newest() }).then(setShown, setError);
  }, [app?.appId, status, eventType]);
  if (!app) return <><h1>Webhook deliveries</h1><NoApp /></>;
  const nextCursor = shown?.nextCursor;
  return (
    <>
      <h1>Webhook deliveries of {app.name}</h1>
      <form class="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">Any</option>
            <option value="delivered">delivered</option>
            <option value="exhausted">failed (exhausted)</option>
          </select>
        </label>
        <label>
          Event
          <select value={eventType} onChange={(e) => setEventType((e.target as HTMLSelectElement).value)}>
            <option value="">Any</option>
            <option value="payment_payin_completed">payment_payin_completed</option>
            <option value="payment_payout_completed">payment_payout_completed</option>
            <option value="webhook_test">webhook_test</option>
          </select>
        </label>
      </form>
      <ErrorNote error={error} />
      {shown === null ? (
        <p>Loading…</p>
      ) : shown.data.length === 0 ? (
        <p>No deliveries match.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Webhook deliveries">
            <thead>
              <tr><th scope="col">Event</th><th scope="col">Payment</th><th scope="col">HTTP</th><th scope="col">Response</th><th scope="col">Status</th><th scope="col">Time</th></tr>
            </thead>
            <tbody>
              {shown.data.map((d) => (
                <tr key={d.deliveryId}>
                  <td>{d.eventType}</td>
                  <td>{d.paymentId ? <Link href={`/payments/${d.paymentId}?app=${app.appId}`} class="mono">{d.paymentId.slice(0, 8)}</Link> : 'test event'}</td>
                  <td>{d.statusCode ?? '—'}</td>
                  <td class="preview">{d.responsePreview ?? ''}</td>
                  <td>{d.status}</td>
                  <td>{when(d.deliveredAt ?? d.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nextCursor && (
        <button
          type="button"
          onClick={() =>
            void api<DeliveryPage>(`/apps/${app.appId}/deliveries?${query(nextCursor)}`, { signal: newest() }).then(
              (more) => setShown((current) => current && { data: [...current.data, ...more.data], nextCursor: more.nextCursor }),
              setError,
            )
          }
        >
          Load more
        </button>
      )}
    </>
  );
}
