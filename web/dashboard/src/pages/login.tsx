import { useState } from 'preact/hooks';
import { api, type DashboardConfig, type DashboardSession, type LoginCodeSent } from '../api';
import { ErrorNote } from '../format';

export function LoginPage(props: { config: DashboardConfig; onLoggedIn: (s: DashboardSession) => void }) {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  /** The login the mailed code belongs to: it is traded only together with it. */
  const [loginId, setLoginId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="login">
      <h1>Log in to Payrail</h1>
      {loginId === null ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              setLoginId((await api<LoginCodeSent>('/auth/login-code', { body: { email } })).loginId);
            });
          }}
        >
          <label for="email">E-mail</label>
          <input id="email" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>Send me a login code</button>
        </form>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => props.onLoggedIn(await api<DashboardSession>('/auth/session', { body: { email, code, loginId } })));
          }}
        >
          <p>We sent a 6-digit code to <strong>{email}</strong>.</p>
          <label for="code">Login code</label>
          <input id="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>Log in</button>
          <button type="button" class="link" onClick={() => setLoginId(null)}>Use another address</button>
        </form>
      )}
      <ErrorNote error={error} />
      {props.config.devMailSinkUrl && (
        <p class="dev-note">
          Development stack: e-mails are caught by the mail sink. Read your code at{' '}
          <a href={`${props.config.devMailSinkUrl}/messages?to=${encodeURIComponent(email || 'demo@payrail.local')}`} target="_blank" rel="noreferrer">
            {props.config.devMailSinkUrl}/messages
          </a>
          . The demo merchant logs in as <code>demo@payrail.local</code>.
        </p>
      )}
    </main>
  );
}
