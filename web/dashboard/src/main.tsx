import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setUnauthenticatedHandler, type AppList, type AppResource, type DashboardConfig, type DashboardSession } from './api';
import { LoginPage } from './pages/login';
import { OverviewPage } from './pages/overview';
import { PaymentPage, PaymentsPage } from './pages/payments';
import { AppsPage } from './pages/apps';
import { DeliveriesPage } from './pages/deliveries';
import { OrdersPage } from './pages/orders';
import { Link, navigate, useLocation } from './router';
import './style.css';

const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/payments', label: 'Payments' },
  { href: '/apps', label: 'Apps & keys' },
  { href: '/deliveries', label: 'Deliveries' },
  { href: '/orders', label: 'Legacy orders' },
];

/** What every page gets: the session, the developer's apps and the one chosen, the page configuration. */
export interface PageProps {
  session: DashboardSession;
  config: DashboardConfig;
  apps: AppResource[];
  app: AppResource | undefined;
  reloadApps: () => Promise<void>;
}

function Dashboard() {
  const { path, query } = useLocation();
  const [session, setSession] = useState<DashboardSession | null | undefined>(undefined);
  const [config, setConfig] = useState<DashboardConfig | undefined>();
  const [apps, setApps] = useState<AppResource[]>([]);
  const [appId, setAppId] = useState<string | null>(null);

  const reloadApps = async () => setApps((await api<AppList>('/apps')).data);
  useEffect(() => {
    setUnauthenticatedHandler(() => setSession(null));
    void api<DashboardConfig>('/dashboard/config').then(setConfig);
    // The apps are asked for at once, not after the session: one round trip less before the first page shows.
    api<DashboardSession>('/auth/session').then(setSession, () => setSession(null));
    reloadApps().catch(() => undefined);
  }, []);
  useEffect(() => {
    if (session && apps.length === 0) void reloadApps();
  }, [session?.developerId]);

  if (session === undefined || !config) return <p class="loading">Loading…</p>;
  if (session === null) {
    return (
      <LoginPage
        config={config}
        onLoggedIn={(s) => {
          setSession(s);
          if (path === '/login') navigate('/', true);
        }}
      />
    );
  }
  const app = apps.find((a) => a.appId === (query.get('app') ?? appId)) ?? apps[0];
  const props: PageProps = { session, config, apps, app, reloadApps };
  const paymentMatch = /^\/payments\/([0-9a-f-]{36})$/.exec(path);
  const page = paymentMatch ? (
    <PaymentPage {...props} paymentId={paymentMatch[1]!} />
  ) : path === '/payments' ? (
    <PaymentsPage {...props} />
  ) : path === '/apps' ? (
    <AppsPage {...props} onSelect={setAppId} />
  ) : path === '/deliveries' ? (
    <DeliveriesPage {...props} />
  ) : path === '/orders' ? (
    <OrdersPage {...props} />
  ) : (
    <OverviewPage {...props} />
  );
  const section = '/' + (path.split('/')[1] ?? '');
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">Payrail</span>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <Link href={n.href} aria-current={section === n.href ? 'page' : undefined}>{n.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {apps.length > 0 && (
            <label>
              App{' '}
              <select value={app?.appId} onChange={(e) => setAppId((e.target as HTMLSelectElement).value)}>
                {apps.map((a) => (
                  <option key={a.appId} value={a.appId}>{a.name}</option>
                ))}
              </select>
            </label>
          )}
          <span class="email">{session.email}</span>
          <button
            type="button"
            onClick={() =>
              void api('/auth/session', { method: 'DELETE' }).finally(() => {
                setSession(null);
                setApps([]);
                navigate('/login');
              })
            }
          >
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}

render(<Dashboard />, document.getElementById('app')!);
