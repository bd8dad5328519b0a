import { useEffect, useState } from 'preact/hooks';
import { api, useNewestRequest, type CallbackAttemptList, type OrderPage } from '../api';
import { ErrorNote, NoApp, when } from '../format';
import type { PageProps } from '../main';

function Callbacks({ appId, orderId }: { appId: string; orderId: string }) {
  const [attempts, setAttempts] = useState<CallbackAttemptList['data'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const newest = useNewestRequest();
  useEffect(() => {
    setAttempts(null);
    api<CallbackAttemptList>(`/apps/${appId}/orders/${orderId}/callbacks`, { signal: newest() }).then((r) => setAttempts(r.data), setError);
  }, [appId, orderId]);
  if (error) return <ErrorNote error={error} />;
  if (!attempts) return <p>Loading…</p>;
  if (attempts.length === 0) return <p>No callbacks sent.</p>;
  return (
    <ul class="attempts">
      {attempts.map((a) => (
        <li key={`${a.callbackId}-${a.attempt}`}>
          {a.orderStatus} · attempt {a.attempt} · {a.statusCode ?? a.error ?? '—'} · {when(a.attemptedAt)}
        </li>
      ))}
    </ul>
  );
}

export function OrdersPage({ app }: PageProps) {
  const [rows, setRows] = useState<OrderPage['data'] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const newest = useNewestRequest();
  useEffect(() => {
    if (!app) return;
    setRows(null);
    setError(null);
    api<OrderPage>(`/apps/${app.appId}/orders?limit=100`, { signal: newest() }).then((r) => setRows(r.data), setError);
  }, [app?.appId]);
  if (!app) return <><h1>Legacy orders</h1><NoApp /></>;
  return (
    <>
      <h1>Legacy orders of {app.name}</h1>
      <ErrorNote error={error} />
      {rows && rows.length === 0 && <p>No legacy orders.</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Legacy orders">
            <thead>
              <tr><th scope="col">Order</th><th scope="col">Price</th><th scope="col">Paid in</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Callbacks</th></tr>
            </thead>
            <tbody>
              {rows.map((o) => (
                <tr key={o.id}>
                  <td>{o.merchantOrderId ?? o.id.slice(0, 8)}{o.title ? ` — ${o.title}` : ''}</td>
                  <td>{o.priceAmount} {o.priceCurrency}</td>
                  <td>{o.payCurrency ?? '—'}</td>
                  <td>{o.status}</td>
                  <td>{when(o.createdAt)}</td>
                  <td>
                    <button type="button" aria-expanded={open === o.id} onClick={() => setOpen(open === o.id ? null : o.id)}>
                      {open === o.id ? 'Hide' : 'Show'} callbacks
                    </button>
                    {open === o.id && <Callbacks appId={app.appId} orderId={o.id} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
