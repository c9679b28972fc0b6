import pino from 'pino';

/**
 * What log lines must not carry: media stream tokens (whoever reads the logs could open a live
 * call's audio until the token expires), phone numbers of people who are not our customers, and the
 * values PostgreSQL quotes back in its errors (contact fields, numbers, anything a statement bound).
 */

const REDACTED = '[redacted]';

/** `…/media/<run id>/<token>` (Twilio's form) and any `token=` query parameter. */
const MEDIA_PATH_TOKEN = /(\/media\/\d{1,15}\/)[^/?#]+/;
const TOKEN_PARAMETER = /([?&]token=)[^&#]*/gi;

/** A request path or URL with its media token, if any, replaced. */
export function redactMediaToken(url: string): string {
  return url.replace(MEDIA_PATH_TOKEN, `$1${REDACTED}`).replace(TOKEN_PARAMETER, `$1${REDACTED}`);
}

/**
 * A phone number (or SIP address) reduced to its first three and last two characters, enough to
 * tell numbers apart when reading the logs of one call: `+442079460958` → `+44********58`.
 */
export function maskPhoneNumber(number: string | null | undefined): string | null {
  if (!number) return null;
  const text = number.trim();
  if (text.length <= 6) return '*'.repeat(text.length);
  return `${text.slice(0, 3)}${'*'.repeat(text.length - 5)}${text.slice(-2)}`;
}

/** The fields of a PostgreSQL error (as the driver or TypeORM raise it) that quote the statement's values. */
const DATABASE_VALUE_FIELDS = ['parameters', 'detail', 'where', 'internalQuery', 'hint'] as const;

const SQLSTATE = /^[0-9A-Z]{5}$/;

interface DatabaseErrorLike {
  code?: unknown;
  severity?: unknown;
  driverError?: unknown;
}

const isDatabaseError = (error: DatabaseErrorLike): boolean =>
  error.driverError !== undefined || (typeof error.code === 'string' && SQLSTATE.test(error.code) && !!error.severity);

/** `invalid input syntax for type integer: "+1 415…"`: the quoted value goes, the rest stays. */
const quotedValues = (text: unknown): unknown =>
  typeof text === 'string' ? text.replace(/"(?:[^"\\]|\\.)*"/g, `"${REDACTED}"`) : text;

type Serialized = Record<string, unknown>;

function scrubDatabaseError(serialized: Serialized): Serialized {
  for (const field of DATABASE_VALUE_FIELDS) {
    if (serialized[field] !== undefined) serialized[field] = REDACTED;
  }
  const code = typeof serialized.code === 'string' ? serialized.code : '';
  // Data exceptions (class 22) quote the refused value in the message itself.
  if (code.startsWith('22') || !code) {
    serialized.message = quotedValues(serialized.message);
    serialized.stack = quotedValues(serialized.stack);
  }
  if (serialized.driverError && typeof serialized.driverError === 'object') {
    serialized.driverError = scrubDatabaseError({ ...(serialized.driverError as Serialized) });
  }
  return serialized;
}

/** pino's `err` serializer, less what a database error says about the values of the statement. */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (!error || typeof error !== 'object' || !serialized || typeof serialized !== 'object') return serialized;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current && typeof current === 'object'; depth += 1) {
    if (isDatabaseError(current)) {
      return scrubDatabaseError(serialized as Serialized);
    }
    current = (current as { cause?: unknown }).cause;
  }
  return serialized;
}
