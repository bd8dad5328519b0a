import { useEffect, useState } from 'preact/hooks';
import {
  ApiFailure,
  api,
  useNewestRequest,
  type ApiKeyList,
  type ApiKeyResource,
  type AppResource,
  type CreatedApiKey,
  type RegisteredApp,
  type WebhookSecretRotation,
  type WebhookTestResult,
} from '../api';
import { CopyButton, ErrorNote, when } from '../format';
import type { PageProps } from '../main';

const value = (e: Event) => (e.target as HTMLInputElement).value;

/** A secret shown once: a copy button and the warning that it will not be shown again. */
function ShownOnce(props: { label: string; secret: string; extra?: string }) {
  return (
    <div class="once" role="status">
      <p>
        <strong>{props.label}</strong> — copy it now: it is shown only once and cannot be retrieved later.
      </p>
      <p>
        <code class="mono secret" data-testid="shown-once">{props.secret}</code> <CopyButton text={props.secret} label={`Copy ${props.label}`} />
      </p>
      {props.extra && <p>{props.extra}</p>}
    </div>
  );
}

function RegisterForm(props: PageProps & { onRegistered: (app: AppResource) => void }) {
  const chains = props.config.chains;
  const [form, setForm] = useState({ name: '', chainId: chains[0]?.chainId ?? '', tokenSymbol: chains[0]?.tokens[0] ?? '', address: '', webhookUrl: '' });
  const [error, setError] = useState<ApiFailure | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const chain = chains.find((c) => c.chainId === form.chainId);
  const tokens = chain?.tokens ?? [];
  // The server checks the address by the chain's family (checksum, form); the hint says which form it takes.
  const addressForm = chain?.addressForm ?? '';
  const fieldError = (path: string) => error?.fieldMessage(path);
  return (
    <section aria-labelledby="h-register">
      <h2 id="h-register">Register an app</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          api<RegisteredApp>('/register', {
            body: { name: form.name || undefined, webhookUrl: form.webhookUrl, payout: { chainId: form.chainId, tokenSymbol: form.tokenSymbol, address: form.address } },
          }).then(
            (app) => {
              setSecret(app.webhookSecret);
              props.onRegistered(app);
            },
            (err: ApiFailure) => setError(err),
          );
        }}
      >
        <label>
          App name
          <input value={form.name} maxLength={100} onInput={(e) => setForm({ ...form, name: value(e) })} />
        </label>
        <label>
          Payout chain
          <select value={form.chainId} onChange={(e) => setForm({ ...form, chainId: value(e), tokenSymbol: chains.find((c) => c.chainId === value(e))?.tokens[0] ?? '' })}>
            {chains.map((c) => (
              <option key={c.chainId} value={c.chainId}>{c.name} ({c.chainId})</option>
            ))}
          </select>
        </label>
        <label>
          Payout token
          <select value={form.tokenSymbol} onChange={(e) => setForm({ ...form, tokenSymbol: value(e) })}>
            {tokens.map((t) => (
              <option key={t} value={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Payout wallet address
          <input required value={form.address} placeholder={addressForm} aria-invalid={Boolean(fieldError('address'))} onInput={(e) => setForm({ ...form, address: value(e) })} />
          {fieldError('address') && <span class="field-error">{fieldError('address')}</span>}
        </label>
        <label>
          Webhook URL
          <input required type="url" value={form.webhookUrl} placeholder="https://" aria-invalid={Boolean(fieldError('webhookUrl'))} onInput={(e) => setForm({ ...form, webhookUrl: value(e) })} />
          {fieldError('webhookUrl') && <span class="field-error">{fieldError('webhookUrl')}</span>}
        </label>
        <button type="submit">Register app</button>
      </form>
      {error && !error.details.length && <ErrorNote error={error} />}
      {secret && <ShownOnce label="Webhook secret" secret={secret} />}
    </section>
  );
}

function Keys({ app }: { app: AppResource }) {
  const [keys, setKeys] = useState<ApiKeyResource[]>([]);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ApiKeyResource['scope']>('Orders');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The app's keys: a newer listing (another app, or after a change) aborts the one in flight.
  const newest = useNewestRequest();
  const load = () => void api<ApiKeyList>(`/apps/${app.appId}/keys`, { signal: newest() }).then((r) => setKeys(r.data), setError);
  useEffect(() => {
    setCreated(null);
    load();
  }, [app.appId]);
  return (
    <section aria-labelledby="h-keys">
      <h2 id="h-keys">API keys</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          api<CreatedApiKey>(`/apps/${app.appId}/keys`, { body: { name: name || undefined, scope } }).then((key) => {
            setCreated(key);
            setName('');
            load();
          }, setError);
        }}
      >
        <label>
          Key name
          <input value={name} maxLength={100} onInput={(e) => setName(value(e))} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope(value(e) as ApiKeyResource['scope'])}>
            <option value="Orders">Orders (create payments)</option>
            <option value="Admin">Admin (statistics, all reads)</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      <ErrorNote error={error} />
      {created && <ShownOnce label={`New ${created.scope} key`} secret={created.key} />}
      <div class="table-wrap">
        <table aria-label="API keys">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td>{k.name ?? '—'}</td>
                <td>{k.scope}</td>
                <td class="mono">{k.hint}</td>
                <td>{when(k.createdAt)}</td>
                <td>{when(k.lastUsedAt)}</td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${when(k.revokedAt)}`
                  ) : confirming === k.id ? (
                    <span role="group" aria-label={`Confirm revoking ${k.name ?? k.hint}`}>
                      Revoke for good?{' '}
                      <button type="button" class="danger" onClick={() => void api(`/apps/${app.appId}/keys/${k.id}`, { method: 'DELETE' }).then(load, setError).finally(() => setConfirming(null))}>
                        Confirm revoke
                      </button>{' '}
                      <button type="button" onClick={() => setConfirming(null)}>Cancel</button>
                    </span>
                  ) : (
                    <button type="button" onClick={() => setConfirming(k.id)} aria-label={`Revoke ${k.name ?? k.hint}`}>Revoke</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Webhook({ app, onChanged }: { app: AppResource; onChanged: () => Promise<void> }) {
  const [url, setUrl] = useState(app.webhookUrl ?? '');
  const [error, setError] = useState<ApiFailure | null>(null);
  const [saved, setSaved] = useState(false);
  const [testResult, setTestResult] = useState<string | null>(null);
  const [rotated, setRotated] = useState<WebhookSecretRotation | null>(null);
  useEffect(() => {
    setUrl(app.webhookUrl ?? '');
    setRotated(null);
  }, [app.appId]);
  const urlError = error?.fieldMessage('webhookUrl');
  return (
    <section aria-labelledby="h-webhook">
      <h2 id="h-webhook">Webhook</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          setSaved(false);
          api<AppResource>(`/apps/${app.appId}/webhook`, { method: 'PUT', body: { webhookUrl: url } }).then(
            () => {
              setSaved(true);
              void onChanged();
            },
            (err: ApiFailure) => setError(err),
          );
        }}
      >
        <label>
          Webhook URL
          <input value={url} aria-invalid={Boolean(urlError)} aria-describedby="webhook-url-error" onInput={(e) => setUrl(value(e))} />
        </label>
        <button type="submit">Save webhook URL</button>
        <span id="webhook-url-error" class="field-error" role="alert">{urlError ?? (error && !urlError ? error.message : '')}</span>
        {saved && <span role="status">Saved.</span>}
      </form>
      <dl>
        <dt>Secret fingerprint</dt>
        <dd class="mono" data-testid="fingerprint">{app.webhookSecretFingerprint ?? '—'}</dd>
        <dt>Secret rotated</dt>
        <dd>{when(app.webhookSecretRotatedAt)}</dd>
      </dl>
      <button
        type="button"
        onClick={() =>
          void api<WebhookSecretRotation>(`/apps/${app.appId}/webhook/rotate`, { method: 'POST' }).then((r) => {
            setRotated(r);
            void onChanged();
          })
        }
      >
        Rotate webhook secret
      </button>
      <button
        type="button"
        onClick={() => {
          setTestResult(null);
          api<WebhookTestResult>(`/apps/${app.appId}/webhook/test`, { method: 'POST' }).then(
            (r) => setTestResult(r.status === 'delivered' ? `Test event delivered (HTTP ${r.statusCode}).` : `Test event failed: ${r.statusCode ? `HTTP ${r.statusCode}` : (r.error ?? 'no answer')}. It is in the delivery log.`),
            (err: Error) => setTestResult(err.message),
          );
        }}
      >
        Send test event
      </button>
      <p role="status" data-testid="test-result">{testResult}</p>
      {rotated && <ShownOnce label="New webhook secret" secret={rotated.webhookSecret} extra={`Fingerprint ${rotated.webhookSecretFingerprint}, rotated ${when(rotated.webhookSecretRotatedAt)}. The old secret stops working now.`} />}
    </section>
  );
}

/** What switching keyless creates on or off does, said before the developer confirms it. */
const KEYLESS_EFFECT = {
  on:
    'Anyone who knows this app id can then create payments for it without an API key (POST /payments with appId in the body), ' +
    'as a browser checkout does. Those payments are marked keyless and never answer a create made with your key for the same orderId.',
  off: 'Payments can then be created only with an API key of this app; creates without one are refused (403 keyless_payments_disabled). Payments already created are not affected.',
};

function KeylessPayments({ app, onChanged }: { app: AppResource; onChanged: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setConfirming(false);
    setError(null);
  }, [app.appId]);
  const next = !app.keylessPayments;
  const action = next ? 'Turn on keyless payments' : 'Turn off keyless payments';
  return (
    <section aria-labelledby="h-keyless">
      <h2 id="h-keyless">Payments without an API key</h2>
      <p data-testid="keyless-state" data-keyless={String(app.keylessPayments)}>
        Keyless payments are <strong>{app.keylessPayments ? 'on' : 'off'}</strong>: {app.keylessPayments ? 'anyone with the app id can create payments.' : 'only requests with an API key create payments.'}
      </p>
      {confirming ? (
        <div role="group" aria-label={`Confirm: ${action.toLowerCase()}`}>
          <p>{next ? KEYLESS_EFFECT.on : KEYLESS_EFFECT.off}</p>
          <button
            type="button"
            class={next ? 'danger' : undefined}
            disabled={busy}
            onClick={() => {
              setBusy(true);
              setError(null);
              api<AppResource>(`/apps/${app.appId}`, { method: 'PATCH', body: { keylessPayments: next } })
                .then(onChanged)
                .then(() => setConfirming(false), setError)
                .finally(() => setBusy(false));
            }}
          >
            {`Confirm: ${action.toLowerCase()}`}
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>{action}</button>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

export function AppsPage(props: PageProps & { onSelect: (appId: string) => void }) {
  const { app } = props;
  return (
    <>
      <h1>Apps &amp; keys</h1>
      {app && (
        <>
          <section aria-labelledby="h-app">
            <h2 id="h-app">{app.name}</h2>
            <dl>
              <dt>App id</dt>
              <dd class="mono" data-testid="app-id">{app.appId}</dd>
              <dt>Developer id</dt>
              <dd class="mono">{app.developerId}</dd>
              <dt>Payout</dt>
              <dd>{app.payout.tokenSymbol} on chain {app.payout.chainId} to <span class="mono">{app.payout.address}</span></dd>
            </dl>
          </section>
          <Keys app={app} />
          <KeylessPayments app={app} onChanged={props.reloadApps} />
          <Webhook app={app} onChanged={props.reloadApps} />
        </>
      )}
      <RegisterForm
        {...props}
        onRegistered={(registered) => {
          props.onSelect(registered.appId);
          void props.reloadApps();
        }}
      />
    </>
  );
}
