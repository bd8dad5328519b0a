import { z } from 'zod';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { decimalString, timestamp } from './common';

/**
 * The payment as the interface shows it (spec 2.1–2.4) and webhook events carry it: what domain/payment-resource's
 * `paymentData` writes, every field present and `null` until known. The dashboard lists payments in this form.
 */
export const paymentDataSchema = z.object({
  id: z.uuid(),
  appId: z.string(),
  orderId: z.string().nullable(),
  keyless: z.boolean(),
  status: z.enum(PAYMENT_STATUSES),
  type: z.literal('exactIn'),
  createdAt: timestamp,
  updatedAt: timestamp,
  expiresAt: timestamp,
  display: z.object({
    title: z.string().nullable(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    currency: z.string().nullable(),
  }),
  source: z.object({
    chainId: z.string(),
    tokenSymbol: z.string(),
    tokenAddress: z.string(),
    amount: decimalString,
    receiverAddress: z.string(),
    fee: decimalString,
    senderAddress: z.string().nullable(),
    txHash: z.string().nullable(),
    amountReceived: decimalString.nullable(),
    confirmedAt: timestamp.nullable(),
  }),
  destination: z.object({
    chainId: z.string(),
    receiverAddress: z.string(),
    receiverMemo: z.string().nullable(),
    tokenSymbol: z.string(),
    tokenAddress: z.string(),
    amount: decimalString,
    txHash: z.string().nullable(),
    confirmedAt: timestamp.nullable(),
  }),
});

export type PaymentData = z.infer<typeof paymentDataSchema>;
