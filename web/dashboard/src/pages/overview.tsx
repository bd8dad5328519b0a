import { useEffect, useState } from 'preact/hooks';
import { api, useNewestRequest, type MerchantStats } from '../api';
import { DailyChart } from '../chart';
import { ErrorNote, NoApp } from '../format';
import type { PageProps } from '../main';

const PERIODS = [
  { period: 'today', label: 'Today' },
  { period: '7d', label: 'Last 7 days' },
  { period: '30d', label: 'Last 30 days' },
] as const;

export function OverviewPage({ app }: PageProps) {
  const [stats, setStats] = useState<Partial<Record<MerchantStats['period'], MerchantStats>>>({});
  const [error, setError] = useState<unknown>(null);
  // Another app's figures abort the ones in flight: the page never shows one app's figures under another's name.
  const newest = useNewestRequest();
  useEffect(() => {
    if (!app) return;
    setStats({});
    setError(null);
    const signal = newest();
    Promise.all(PERIODS.map((p) => api<MerchantStats>(`/apps/${app.appId}/stats?period=${p.period}`, { signal })))
      .then((all) => setStats(Object.fromEntries(all.map((s) => [s.period, s]))))
      .catch(setError);
  }, [app?.appId]);
  if (!app) return <><h1>Overview</h1><NoApp /></>;
  return (
    <>
      <h1>Overview of {app.name}</h1>
      <ErrorNote error={error} />
      <div class="cards">
        {PERIODS.map(({ period, label }) => {
          const s = stats[period];
          return (
            <section class="card" key={period} aria-labelledby={`h-${period}`}>
              <h2 id={`h-${period}`}>{label}</h2>
              <dl>
                <dt>Volume</dt>
                <dd>{s ? `${s.volumeUsdc} USDC` : '…'}</dd>
                <dt>Payments</dt>
                <dd data-testid={`count-${period}`}>{s ? s.paymentCount : '…'}</dd>
                <dt>Average</dt>
                <dd>{s ? `${s.avgOrderUsdc} USDC` : '…'}</dd>
                <dt>Net to wallet</dt>
                <dd>{s ? `${s.netToWalletUsdc} USDC` : '…'}</dd>
              </dl>
            </section>
          );
        })}
      </div>
      <section aria-labelledby="h-chart">
        <h2 id="h-chart">Daily volume, last 30 days</h2>
        {stats['30d'] ? <DailyChart days={stats['30d'].chart} /> : <p>…</p>}
      </section>
    </>
  );
}
