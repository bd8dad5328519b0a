import pino from 'pino';
import { logContext } from './log-context';

/** One structured logger; secrets are redacted wherever they could appear; lines carry the current log context. */
export function createLogger(level: string, name: string): pino.Logger {
  return pino({
    name,
    level,
    mixin: logContext,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.token', '*.privateKey', '*.apiKey', '*.webhookSecret'],
      censor: '[redacted]',
    },
  });
}

export type Logger = pino.Logger;
