import type { DashboardConfig } from './api';

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
export const statusLabel = (status: string) => status.replace(/^payment_/, '').replace(/_/g, ' ');

export function StatusBadge(props: { status: string }) {
  return <span class={`badge s-${props.status}`} data-status={props.status}>{statusLabel(props.status)}</span>;
}

export const chainName = (config: DashboardConfig, chainId: string) => config.chains.find((c) => c.chainId === chainId)?.name ?? `chain ${chainId}`;

/** A transaction hash, linked to the chain's explorer when one is configured. */
export function TxHash(props: { hash: string | null; link: string | null }) {
  if (!props.hash) return <span>—</span>;
  return props.link ? (
    <a class="mono" href={props.link} target="_blank" rel="noreferrer">{props.hash}</a>
  ) : (
    <code class="mono">{props.hash}</code>
  );
}

export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  return <p role="alert" class="error">{props.error instanceof Error ? props.error.message : 'something went wrong'}</p>;
}

export function CopyButton(props: { text: string; label: string }) {
  return (
    <button type="button" onClick={() => void navigator.clipboard?.writeText(props.text)} aria-label={props.label}>
      Copy
    </button>
  );
}

export function NoApp() {
  return <p>Register an app first on the <a href="/dashboard/apps">Apps &amp; keys</a> page.</p>;
}
