import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Payrail's one way out for e-mail (login codes now, receipts later): plain UTF-8 text over SMTP. */
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
    await this.transport.sendMail(message);
  }
}
