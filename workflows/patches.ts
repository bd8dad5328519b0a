/**
 * Every `patched()` id of Payrail's workflows, named once. docs/workflow-versioning.md says what each one guards
 * and when it is deprecated (`deprecatePatch`) and then removed.
 */
export const PATCHES = {
  /** Payment runs recorded before webhook events existed replay without them (legacy payment run only). */
  webhookEvents: 'webhook-events',
  /** Payment runs recorded before native-coin payins were kept by the treasury (legacy payment run only). */
  nativeCoinPayins: 'native-coin-payins',
  /**
   * Payment runs end when the payment does: payins counted by identity and summed, terms read from the database,
   * late payins refunded by their own short run. Runs started before it finish on the legacy payment code.
   */
  paymentRunEndsWhenSettled: 'payment-run-ends-when-settled',
  /** An order's run ends after its payment's run (orders started before it ended as soon as the payment settled). */
  orderRunEndsAfterItsPayment: 'order-run-ends-after-its-payment',
  /**
   * The money path against attackers: dust is held rather than refunded at a loss, a chain step whose call would
   * revert waits for an operator (`retryChainStep`), and a payout waiting for treasury funds says so in a search
   * attribute (`AwaitingOperator`).
   */
  adversarialMoneyPath: 'adversarial-money-path',
  /**
   * Cross-chain payments bridge through the bridge adapters (CCTP v2 for USDC, LayerZero OFT for USDT): quote,
   * approval, burn or send, attestation or delivery, mint. Runs recorded before it bridged through the DevnetBridge
   * contract (burnForBridge / mintFromBridge, which no worker serves any more: replay only).
   */
  realBridges: 'real-bridges',
  /**
   * A payment run's read-model writes and chain writes run as local activities (markers in the history) instead of
   * activity tasks; the chain waits and webhook deliveries stay activity tasks. Runs recorded before it keep
   * activity tasks for every step.
   */
  localSteps: 'local-steps',
  /**
   * A payin that confirms when the counted ones already add up is refunded whole instead of counted (before it, two
   * payins confirming together both counted, and the excess went back as an overpayment's).
   */
  countUntilPaid: 'count-until-paid',
  /**
   * A same-chain payout is signed beside the sweep instead of after it: the treasury pays from its float (reserved
   * by `reservePayoutFunds`), so nothing waits for the deposit to be swept first. Runs recorded before it swept
   * first.
   */
  payoutBesideSweep: 'payout-beside-sweep',
  /**
   * A payment run that starts with this marker has every payment patch before it (`FOLDED_PAYMENT_PATCHES`) and asks
   * for none of them: one marker per run instead of one per patch. Each patch marker also upserts the
   * TemporalChangeVersion search attribute, a visibility write on the Temporal server: a same-chain payment made
   * four of them. Runs started before it ask for each patch as they did.
   */
  paymentPatchesFolded: 'payment-patches-folded',
  /**
   * `AwaitingOperator` stays set while any of a run's operator waits is open (it shows the oldest): before it, the
   * first wait to end cleared it while another (a refund's reverting call, a payout's short treasury) still waited.
   * Asked for where a wait begins, so only runs that wait record its marker.
   */
  operatorWaitsTracked: 'operator-waits-tracked',
  /**
   * A payment created without a webhook URL schedules no webhook deliveries: each was an activity task that found
   * nothing to send (`not_configured`). Asked for where the first delivery would start, and only by such a payment.
   */
  noDeliveriesWithoutWebhookUrl: 'no-deliveries-without-webhook-url',
} as const;

/** The payment patches a run with `paymentPatchesFolded` has without asking (`PaymentRun.has`). */
export const FOLDED_PAYMENT_PATCHES = [
  PATCHES.paymentRunEndsWhenSettled,
  PATCHES.adversarialMoneyPath,
  PATCHES.realBridges,
  PATCHES.localSteps,
  PATCHES.countUntilPaid,
  PATCHES.payoutBesideSweep,
] as const;

export type FoldedPaymentPatch = (typeof FOLDED_PAYMENT_PATCHES)[number];

/** Every patch a payment run asks for (`PaymentRun.has`), unless it started lean or folded. */
export type PaymentPatch = FoldedPaymentPatch | typeof PATCHES.operatorWaitsTracked | typeof PATCHES.noDeliveriesWithoutWebhookUrl;
