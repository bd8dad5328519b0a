import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DetectedPayin, PaymentState } from './types';

/** Sent by the chain watcher for every transfer it sees into a payment's deposit address (may repeat). */
export const payinDetectedSignal = defineSignal<[DetectedPayin]>('payinDetected');

/** The live lifecycle state held by the payment workflow. */
export const paymentStateQuery = defineQuery<PaymentState>('paymentState');
