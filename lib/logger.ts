import pino from 'pino';

/** One structured logger; secrets are redacted wherever they could appear. */
export function createLogger(level: string, name: string): pino.Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.token', '*.privateKey', '*.apiKey', '*.webhookSecret'],
      censor: '[redacted]',
    },
  });
}

export type Logger = pino.Logger;
