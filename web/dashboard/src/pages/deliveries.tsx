import { useEffect, useState } from 'preact/hooks';
import { api, type Delivery } from '../api';
import { ErrorNote, NoApp, when } from '../format';
import type { PageProps } from '../main';
import { Link } from '../router';

export function DeliveriesPage({ app }: PageProps) {
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const query = (cursor?: string) => {
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (eventType) q.set('eventType', eventType);
    if (cursor) q.set('cursor', cursor);
    return q.toString();
  };
  useEffect(() => {
    if (!app) return;
    api<{ data: Delivery[]; nextCursor: string | null }>(`/apps/${app.appId}/deliveries?${query()}`).then((page) => {
      setRows(page.data);
      setNext(page.nextCursor);
    }, setError);
  }, [app?.appId, status, eventType]);
  if (!app) return <><h1>Webhook deliveries</h1><NoApp /></>;
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
      {rows === null ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p>No deliveries match.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Webhook deliveries">
            <thead>
              <tr><th scope="col">Event</th><th scope="col">Payment</th><th scope="col">HTTP</th><th scope="col">Response</th><th scope="col">Status</th><th scope="col">Time</th></tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.deliveryId}>
                  <td>{d.eventType}</td>
                  <td>{d.paymentId ? <Link href={`/payments/${d.paymentId}?app=${app.appId}`} class="mono">{d.paymentId.slice(0, 8)}</Link> : 'test event'}</td>
                  <td>{d.statusCode ?? '—'}</td>
                  <td class="preview">{d.responsePreview ?? ''}</td>
                  <td>{d.status}</td>
                  <td>{when(d.deliveredAt ?? d.createdAt ?? null)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && rows && (
        <button type="button" onClick={() => void api<{ data: Delivery[]; nextCursor: string | null }>(`/apps/${app.appId}/deliveries?${query(next)}`).then((p) => { setRows([...rows, ...p.data]); setNext(p.nextCursor); }, setError)}>
          Load more
        </button>
      )}
    </>
  );
}
