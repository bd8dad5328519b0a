import { useState } from 'preact/hooks';
import { ApiFailure, api, type AcceptedPayment, type DashboardConfig, type PaymentDetail } from '../api';
import { CopyButton, ErrorNote, TxHash, chainName, when } from '../format';

type Refund = PaymentDetail['refunds'][number];

/** A transaction's explorer link on a chain the dashboard knows, when its explorer is configured. */
const txLink = (config: DashboardConfig, chainId: string, hash: string | null) => {
  const explorer = config.chains.find((c) => c.chainId === chainId)?.explorerUrl;
  return hash && explorer ? `${explorer.replace(/\/+$/, '')}/tx/${hash}` : null;
};

const REFUND_STATUS_LABELS: Record<Refund['status'], string> = {
  awaiting_address: 'awaiting the customer’s address',
  pending: 'pending',
  sent: 'sent, confirming',
  completed: 'completed',
  failed: 'failed',
};

export function RefundStatus(props: { status: Refund['status'] }) {
  return <span class={`badge r-${props.status}`} data-refund-status={props.status}>{REFUND_STATUS_LABELS[props.status]}</span>;
}

/**
 * A refund as it moves on: its status, its transaction, the claim link to give the customer when it has one, and,
 * past the app's refund credit, where the merchant funds it.
 */
function RefundProgress({ refund, config }: { refund: Refund; config: DashboardConfig }) {
  return (
    <dl class="refund-progress" data-refund-id={refund.id}>
      <dt>Amount</dt>
      <dd>{refund.amount} {refund.tokenSymbol} on {chainName(config, refund.chainId)}</dd>
      <dt>Status</dt>
      <dd data-testid="refund-status"><RefundStatus status={refund.status} /></dd>
      <dt>To</dt>
      <dd class="mono">{refund.address ?? '—'}</dd>
      <dt>Transaction</dt>
      <dd data-testid="refund-tx"><TxHash hash={refund.txHash} link={txLink(config, refund.chainId, refund.txHash)} /></dd>
      {refund.claimUrl && (
        <>
          <dt>Claim link</dt>
          <dd>
            <code class="mono" data-testid="claim-url">{refund.claimUrl}</code> <CopyButton text={refund.claimUrl} label="Copy the claim link" />
          </dd>
        </>
      )}
      {refund.funding && (
        <>
          <dt>Funding</dt>
          <dd data-testid="refund-funding">
            {refund.funding.txHash ? (
              <>funded by <TxHash hash={refund.funding.txHash} link={txLink(config, refund.chainId, refund.funding.txHash)} /></>
            ) : (
              <>
                Past this app’s refund credit: send {refund.funding.amount} {refund.tokenSymbol} on {chainName(config, refund.chainId)} to{' '}
                <code class="mono">{refund.funding.address}</code> <CopyButton text={refund.funding.address} label="Copy the funding address" />
                {refund.funding.memo && <> with memo <code class="mono">{refund.funding.memo}</code></>}. The refund is sent once it arrives.
              </>
            )}
          </dd>
        </>
      )}
    </dl>
  );
}

/** The page's own key for one confirmation: the same confirmation sent again (a retry) is the same refund. */
const newIdempotencyKey = () => `dashboard-${crypto.randomUUID()}`;

interface Draft {
  amount: string;
  reason: string;
  address: string;
}

/**
 * The Refund dialog: amount (what is left by default), reason and address, then a confirmation, then the refund's
 * progress as the payment's page polls it. It asks the API the merchant's Admin key asks (one refund service).
 */
function RefundDialog(props: { appId: string; detail: PaymentDetail; config: DashboardConfig; onClose: () => void }) {
  const { payment } = props.detail;
  const [draft, setDraft] = useState<Draft>({ amount: props.detail.refundable ?? '', reason: '', address: '' });
  const [step, setStep] = useState<{ kind: 'form' } | { kind: 'confirm'; key: string } | { kind: 'sent'; refund: Refund }>({ kind: 'form' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const chain = chainName(props.config, payment.source.chainId);
  const field = (name: keyof Draft) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  const fieldError = (name: string) => (error instanceof ApiFailure ? error.fieldMessage(name) : undefined);

  const confirm = async (key: string) => {
    setBusy(true);
    setError(null);
    try {
      const body = { amount: draft.amount.trim(), ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}), ...(draft.address.trim() ? { address: draft.address.trim() } : {}) };
      const refund = await api<Refund>(`/apps/${props.appId}/payments/${payment.id}/refunds`, { body, headers: { 'idempotency-key': key } });
      setStep({ kind: 'sent', refund });
    } catch (err) {
      setError(err);
      // Refused for its input: back to the form, where the field says why. Otherwise the same confirmation may be retried.
      if (err instanceof ApiFailure && err.status === 400) setStep({ kind: 'form' });
    } finally {
      setBusy(false);
    }
  };

  // The refund as the page's last poll shows it (its status and transaction move on), else as it was created.
  const shown = step.kind === 'sent' ? (props.detail.refunds.find((r) => r.id === step.refund.id) ?? step.refund) : null;
  return (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="h-refund">
        <h2 id="h-refund">{shown ? 'Refund' : step.kind === 'confirm' ? 'Confirm the refund' : 'Refund this payment'}</h2>
        {step.kind === 'form' && (
          <form
            class="stack"
            aria-label="Refund"
            onSubmit={(e) => {
              e.preventDefault();
              setError(null);
              setStep({ kind: 'confirm', key: newIdempotencyKey() });
            }}
          >
            <p>
              The customer paid {payment.source.amount} {payment.source.tokenSymbol} on {chain}; {props.detail.refundable} {payment.source.tokenSymbol} is left to refund.
              The refund is sent in {payment.source.tokenSymbol} on {chain}, from your balance.
            </p>
            <label>
              Amount ({payment.source.tokenSymbol})
              <input name="amount" inputMode="decimal" required value={draft.amount} onInput={field('amount')} aria-invalid={fieldError('amount') ? 'true' : undefined} />
              {fieldError('amount') && <span class="field-error">{fieldError('amount')}</span>}
            </label>
            <label>
              Reason (optional)
              <input name="reason" maxLength={500} value={draft.reason} onInput={field('reason')} aria-invalid={fieldError('reason') ? 'true' : undefined} />
              {fieldError('reason') && <span class="field-error">{fieldError('reason')}</span>}
            </label>
            <label>
              Customer’s address on {chain} (optional)
              <input name="address" class="mono" autoComplete="off" spellcheck={false} value={draft.address} onInput={field('address')} aria-invalid={fieldError('address') ? 'true' : undefined} />
              <small>Without one, the refund waits for the customer to claim it with a link.</small>
              {fieldError('address') && <span class="field-error">{fieldError('address')}</span>}
            </label>
            {!(error instanceof ApiFailure && error.details.length > 0) && <ErrorNote error={error} />}
            <div class="buttons">
              <button type="submit">Review refund</button>
              <button type="button" onClick={props.onClose}>Cancel</button>
            </div>
          </form>
        )}
        {step.kind === 'confirm' && (
          <div class="stack">
            <p class="confirm-text">
              Send <strong>{draft.amount.trim()} {payment.source.tokenSymbol}</strong> on {chain} {draft.address.trim() ? <>to <code class="mono">{draft.address.trim()}</code></> : 'by a claim link'}?
              {draft.reason.trim() && <> Reason: “{draft.reason.trim()}”.</>} A refund cannot be undone.
            </p>
            <ErrorNote error={error} />
            <div class="buttons">
              <button type="button" class="danger" disabled={busy} onClick={() => void confirm(step.key)}>
                {busy ? 'Refunding…' : 'Confirm refund'}
              </button>
              <button type="button" disabled={busy} onClick={() => setStep({ kind: 'form' })}>Back</button>
            </div>
          </div>
        )}
        {shown && (
          <div class="stack">
            <RefundProgress refund={shown} config={props.config} />
            <div class="buttons">
              <button type="button" onClick={props.onClose}>Close</button>
            </div>
          </div>
        )}
      </div>
    </div>
  );
}

/** "Accept as paid": offered on a payment that collects short, with a confirmed payin; asked once more before it is sent. */
export function AcceptAsPaid(props: { appId: string; detail: PaymentDetail; onAccepted: () => void }) {
  const { payment, arrived } = props.detail;
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (!arrived) return null;
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      await api<AcceptedPayment>(`/apps/${props.appId}/payments/${payment.id}/accept`, { method: 'POST' });
      setConfirming(false);
      props.onAccepted();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="action">
      {confirming ? (
        <p>
          Accept {arrived.confirmed} of {payment.source.amount} {payment.source.tokenSymbol} as paid? You are paid out what arrived, less the fee.{' '}
          <button type="button" class="danger" disabled={busy} onClick={() => void accept()}>{busy ? 'Accepting…' : 'Confirm: accept as paid'}</button>{' '}
          <button type="button" disabled={busy} onClick={() => setConfirming(false)}>Cancel</button>
        </p>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>Accept as paid</button>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

/** The payment's refunds, and the Refund action while something is left to refund. */
export function Refunds(props: { appId: string; detail: PaymentDetail; config: DashboardConfig }) {
  const { detail } = props;
  const [refunding, setRefunding] = useState(false);
  const canRefund = detail.refundable !== null && !/^0(\.0*)?$/.test(detail.refundable);
  return (
    <section aria-labelledby="h-refunds">
      <h2 id="h-refunds">Refunds</h2>
      {detail.refunds.length === 0 ? (
        <p>No refunds.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Refunds of this payment">
            <thead>
              <tr><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">To</th><th scope="col">Transaction</th><th scope="col">Asked</th></tr>
            </thead>
            <tbody>
              {detail.refunds.map((r) => (
                <tr key={r.id} data-refund-id={r.id}>
                  <td>{r.amount} {r.tokenSymbol}</td>
                  <td><RefundStatus status={r.status} /></td>
                  <td>{r.reason ?? '—'}</td>
                  <td class="mono">{r.address ?? (r.claimUrl ? <>claim link <CopyButton text={r.claimUrl} label="Copy the claim link" /></> : '—')}</td>
                  <td><TxHash hash={r.txHash} link={txLink(props.config, r.chainId, r.txHash)} /></td>
                  <td>{when(r.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canRefund && (
        <p>
          <button type="button" onClick={() => setRefunding(true)}>Refund…</button> <small>{detail.refundable} {detail.payment.source.tokenSymbol} left to refund</small>
        </p>
      )}
      {refunding && <RefundDialog appId={props.appId} detail={detail} config={props.config} onClose={() => setRefunding(false)} />}
    </section>
  );
}
