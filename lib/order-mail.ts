import nodemailer from 'nodemailer';
import type { Logger } from './logger';

/**
 * The seam through which order receipts are mailed. The merchant-service work brings the project's Mailer
 * (`lib/mail.ts`, SMTP via nodemailer, a dev mail sink); when it lands, `createMailSender` should hand out an
 * adapter over it instead of its own transport. Until then this sends through `SMTP_URL` itself, or only logs.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface MailSender {
  send(message: MailMessage): Promise<void>;
}

export function createMailSender(options: { smtpUrl?: string; from: string; log: Logger }): MailSender {
  const { smtpUrl, from, log } = options;
  if (!smtpUrl) {
    return {
      send(message) {
        log.warn({ to: message.to, subject: message.subject }, 'SMTP_URL is not set: receipt not mailed');
        return Promise.resolve();
      },
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
  };
}
