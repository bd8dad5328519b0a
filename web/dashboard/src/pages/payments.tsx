import { useEffect, useRef, useState } from 'preact/hooks';
import { API, api, useNewestRequest, usePolling, type PaymentChanges, type PaymentDetail, type PaymentPage } from '../api';
import { ErrorNote, NoApp, StatusBadge, TxHash, chainName, statusLabel, when } from '../format';
import type { PageProps } from '../main';
import { Link } from '../router';
import { AcceptAsPaid, Refunds } from './money-actions';

/** How often an open page asks what changed: one indexed query per app, cheap enough every couple of seconds. */
const POLL_MS = 2000;

interface Filters {
  status: string;
  q: string;
  from: string;
  to: string;
}

const queryString = (f: Filters, cursor?: string) => {
  const q = new URLSearchParams();
  if (f.status) q.set('status', f.status);
  if (f.q.trim()) q.set('q', f.q.trim());
  if (f.from) q.set('from', f.from);
  if (f.to) q.set('to', f.to);
  if (cursor) q.set('cursor', cursor);
  return q.toString();
};

/** `YYYY-MM-DD` of a UTC date. */
const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The Export button: the app's statement of a period (every ledger movement of its payments, with opening and
 * closing totals) as a CSV file, downloaded with the dashboard's session. The period defaults to this month.
 */
function StatementExport({ appId }: { appId: string }) {
  const now = new Date();
  const [from, setFrom] = useState(day(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))));
  const [to, setTo] = useState(day(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))));
  const href = `${API}/apps/${encodeURIComponent(appId)}/statement?${new URLSearchParams({ from, to, format: 'csv' }).toString()}`;
  return (
    <form class="filters" aria-label="Export a statement" onSubmit={(e) => e.preventDefault()}>
      <label>
        Statement from
        <input type="date" value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Statement before
        <input type="date" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
      </label>
      <a class="button" href={href} download>
        Export
      </a>
    </form>
  );
}

export function PaymentsPage({ app, config }: PageProps) {
  const [filters, setFilters] = useState<Filters>({ status: '', q: '', from: '', to: '' });
  const [draft, setDraft] = useState<Filters>(filters);
  const [shown, setShown] = useState<PaymentPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const since = useRef('');
  // The first page of the filters and every further page: a newer one aborts the one in flight.
  const newest = useNewestRequest();

  useEffect(() => {
    if (!app) return;
    setShown(null);
    setError(null);
    since.current = new Date().toISOString();
    api<PaymentPage>(`/apps/${app.appId}/payments?${queryString(filters)}`, { signal: newest() }).then(setShown, setError);
  }, [app?.appId, filters]);

  // Live statuses: merge what changed since the last poll into the rows on screen.
  usePolling(
    app
      ? (signal) =>
          api<PaymentChanges>(`/apps/${app.appId}/payments/changes?since=${encodeURIComponent(since.current)}`, { signal }).then(({ data }) => {
            if (data.length === 0) return;
            since.current = data[data.length - 1]!.updatedAt;
            const changed = new Map(data.map((p) => [p.id, p]));
            setShown((current) => {
              if (!current) return current;
              const listed = new Set(current.data.map((p) => p.id));
              const unfiltered = !filters.status && !filters.q && !filters.from && !filters.to;
              const fresh = unfiltered ? data.filter((p) => !listed.has(p.id) && (current.data.length === 0 || p.createdAt >= current.data[0]!.createdAt)).reverse() : [];
              return { ...current, data: [...fresh, ...current.data.map((p) => changed.get(p.id) ?? p)] };
            });
          })
      : null,
    POLL_MS,
    [app?.appId, filters],
    { now: false },
  );

  if (!app) return <><h1>Payments</h1><NoApp /></>;
  const nextCursor = shown?.nextCursor;
  const field = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  return (
    <>
      <h1>Payments of {app.name}</h1>
      <form
        class="filters"
        role="search"
        aria-label="Filter payments"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <label>
          Status
          <select value={draft.status} onChange={field('status')}>
            <option value="">Any</option>
            {config.paymentStatuses.map((s) => (
              <option key={s} value={s}>{statusLabel(s)}</option>
            ))}
          </select>
        </label>
        <label>
          Order or payment id
          <input type="search" value={draft.q} onInput={field('q')} />
        </label>
        <label>
          Created from
          <input type="date" value={draft.from} onInput={field('from')} />
        </label>
        <label>
          Created before
          <input type="date" value={draft.to} onInput={field('to')} />
        </label>
        <button type="submit">Apply filters</button>
      </form>
      <StatementExport appId={app.appId} />
      <ErrorNote error={error} />
      {shown === null ? (
        <p>Loading…</p>
      ) : shown.data.length === 0 ? (
        <p>No payments match.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Payments">
            <thead>
              <tr>
                <th scope="col">Payment</th>
                <th scope="col">Order</th>
                <th scope="col">Amount</th>
                <th scope="col">Refunded</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {shown.data.map((p) => (
                <tr key={p.id} data-payment-id={p.id}>
                  <td>
                    <Link href={`/payments/${p.id}?app=${app.appId}`} class="mono">{p.id.slice(0, 8)}</Link>
                  </td>
                  <td>{p.orderId ?? '—'}</td>
                  <td>
                    {p.source.amount} {p.source.tokenSymbol} <small>on {chainName(config, p.source.chainId)}</small>
                  </td>
                  <td data-testid="refunded">{p.refunded ? `${p.refunded} ${p.source.tokenSymbol}` : '—'}</td>
                  <td>
                    <StatusBadge status={p.status} />
                  </td>
                  <td>{when(p.createdAt)}</td>
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
            void api<PaymentPage>(`/apps/${app.appId}/payments?${queryString(filters, nextCursor)}`, { signal: newest() }).then(
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

export function PaymentPage({ app, config, paymentId }: PageProps & { paymentId: string }) {
  const [detail, setDetail] = useState<PaymentDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Bumped after an action, so the payment is read again at once.
  const [asked, setAsked] = useState(0);
  usePolling(
    app ? (signal) => api<PaymentDetail>(`/apps/${app.appId}/payments/${paymentId}`, { signal }).then(setDetail, setError) : null,
    POLL_MS,
    [app?.appId, paymentId, asked],
    { now: true },
  );
  if (!app) return <NoApp />;
  if (!detail) return <><h1>Payment</h1><ErrorNote error={error} />{!error && <p>Loading…</p>}</>;
  const { payment: p, timeline, links, deliveries, quarantined, arrived } = detail;
  return (
    <>
      <p><Link href={`/payments?app=${app.appId}`}>← All payments</Link></p>
      <h1>
        Payment <span class="mono">{p.id}</span> <StatusBadge status={p.status} />
      </h1>
      <div class="cards">
        <section class="card" aria-labelledby="h-amounts">
          <h2 id="h-amounts">Amounts</h2>
          <dl>
            <dt>Order</dt>
            <dd>{p.orderId ?? '—'}</dd>
            <dt>Customer pays</dt>
            <dd>{p.source.amount} {p.source.tokenSymbol} on {chainName(config, p.source.chainId)}</dd>
            <dt>Fee</dt>
            <dd>{p.source.fee} {p.source.tokenSymbol}</dd>
            <dt>Received</dt>
            <dd>{p.source.amountReceived ? `${p.source.amountReceived} ${p.source.tokenSymbol}` : '—'}</dd>
            {arrived && (
              <>
                <dt>Arrived so far</dt>
                <dd data-testid="arrived">
                  {arrived.confirmed} {p.source.tokenSymbol} confirmed{arrived.confirming !== '0' && `, ${arrived.confirming} ${p.source.tokenSymbol} confirming`}; {arrived.left} {p.source.tokenSymbol} left to pay
                </dd>
              </>
            )}
            <dt>Paid out</dt>
            <dd>{p.destination.amount} {p.destination.tokenSymbol} on {chainName(config, p.destination.chainId)}</dd>
            {detail.keptForRefunds !== null && detail.keptForRefunds !== '0' && (
              <>
                <dt>Kept back for refunds</dt>
                <dd data-testid="kept-for-refunds">{detail.keptForRefunds} {p.destination.tokenSymbol}, for refunds this app made earlier</dd>
              </>
            )}
            <dt>Expires</dt>
            <dd>{when(p.expiresAt)}</dd>
          </dl>
          {detail.acceptable && <AcceptAsPaid appId={app.appId} detail={detail} onAccepted={() => setAsked((n) => n + 1)} />}
        </section>
        <section class="card" aria-labelledby="h-addresses">
          <h2 id="h-addresses">Addresses and transactions</h2>
          <dl>
            <dt>Deposit address</dt>
            <dd class="mono">{p.source.receiverAddress}</dd>
            <dt>Sender</dt>
            <dd class="mono">{p.source.senderAddress ?? '—'}</dd>
            <dt>Payin transaction</dt>
            <dd data-testid="payin-tx"><TxHash hash={p.source.txHash} link={links.payinTx} /></dd>
            <dt>Payout wallet</dt>
            <dd class="mono">{p.destination.receiverAddress}</dd>
            <dt>Payout transaction</dt>
            <dd data-testid="payout-tx"><TxHash hash={p.destination.txHash} link={links.payoutTx} /></dd>
            <dt>Workflow</dt>
            <dd>{links.workflow ? <a href={links.workflow} target="_blank" rel="noreferrer">Open in Temporal UI</a> : <code>payment-{p.id}</code>}</dd>
            <dt>Payment page</dt>
            <dd><a href={detail.paymentLink} target="_blank" rel="noreferrer">{detail.paymentLink}</a></dd>
          </dl>
        </section>
      </div>
      <section aria-labelledby="h-timeline">
        <h2 id="h-timeline">Timeline</h2>
        <ol class="timeline" aria-label="Status timeline">
          {timeline.map((t, i) =>
            'status' in t ? (
              <li key={i} data-status={t.status}>
                <StatusBadge status={t.status} /> <time dateTime={t.at}>{when(t.at)}</time>
              </li>
            ) : (
              <li key={i} data-event={t.event} class="event">
                {t.note} <time dateTime={t.at}>{when(t.at)}</time>
              </li>
            ),
          )}
        </ol>
      </section>
      <Refunds appId={app.appId} detail={detail} config={config} />
      {quarantined.length > 0 && (
        <section aria-labelledby="h-quarantined">
          <h2 id="h-quarantined">Quarantined transfers</h2>
          <p>Tokens Payrail does not accept were sent to the deposit address. They never count towards the payment and are not refunded.</p>
          <div class="table-wrap">
            <table aria-label="Quarantined transfers">
              <thead>
                <tr><th scope="col">Token contract</th><th scope="col">Base units</th><th scope="col">Transaction</th><th scope="col">Recorded</th></tr>
              </thead>
              <tbody>
                {quarantined.map((q) => (
                  <tr key={`${q.txHash}:${q.logIndex}`}>
                    <td class="mono">{q.tokenAddress}</td>
                    <td>{q.amountUnits}</td>
                    <td><TxHash hash={q.txHash} link={q.txLink} /></td>
                    <td>{when(q.recordedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      <section aria-labelledby="h-deliveries">
        <h2 id="h-deliveries">Webhook deliveries</h2>
        {deliveries.length === 0 ? (
          <p>No deliveries yet.</p>
        ) : (
          <div class="table-wrap">
            <table aria-label="Webhook deliveries of this payment">
              <thead>
                <tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">HTTP</th><th scope="col">Response</th><th scope="col">Sent</th></tr>
              </thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={d.deliveryId}>
                    <td>{d.eventType}</td>
                    <td>{d.status}</td>
                    <td>{d.statusCode ?? '—'}</td>
                    <td class="preview">{d.responsePreview ?? ''}</td>
                    <td>{when(d.deliveredAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
