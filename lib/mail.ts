import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** The mail server refused every recipient for good (a 5xx to `RCPT TO`): the address cannot get mail from us. */
export class RecipientRefused extends Error {}

/** Payrail's one way out for e-mail (login codes and receipts): plain UTF-8 text over SMTP. */
export class Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(options: { smtpUrl: string; from: string }) {
    // Short timeouts: a request waiting on mail must fail in seconds, not nodemailer's default minutes.
    this.transport = nodemailer.createTransport(
      { url: options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 },
      { from: options.from },
    );
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail(message);
    } catch (err) {
      // nodemailer's EENVELOPE: the server refused the recipients; a 5xx says that sending again cannot help.
      const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
      if (code === 'EENVELOPE' && typeof responseCode === 'number' && responseCode >= 500) throw new RecipientRefused('the mail server refused the address', { cause: err });
      throw err;
    }
  }
}
