import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createIdempotencyKeyRepository } from '../../entities/repositories/idempotency-key.repository';
import { ConflictError, ValidationError } from '../errors';

const MAX_KEY_LENGTH = 255;

/** A 422 like any other invalid input, pointing at the header. */
export class IdempotencyKeyReusedError extends ValidationError {
  constructor() {
    super([
      {
        loc: ['header', 'Idempotency-Key'],
        msg: 'Idempotency-Key was already used with a different request',
        type: 'value_error',
      },
    ]);
  }
}

/** JSON with sorted keys, so the same body always hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export const requestHash = (route: string, body: unknown): string =>
  createHash('sha256')
    .update(`${route}\n${canonicalJson(body)}`)
    .digest('hex');

/** The `Idempotency-Key` header, when given (at most 255 characters). */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || key === '') return undefined;
  if (key.length > MAX_KEY_LENGTH) {
    throw new ValidationError([
      { loc: ['header', 'Idempotency-Key'], msg: `at most ${MAX_KEY_LENGTH} characters`, type: 'too_long' },
    ]);
  }
  return key;
}

/**
 * Runs `produce` once per (organization, key) within 24 hours: the first request reserves the key
 * in PostgreSQL (so every API replica sees it) and stores its answer; the same key with the same
 * request gets that answer back, with another request 422, and while the first is in flight 409.
 *
 * `produce` calls `starting()` just before it does what cannot be undone (starting the call's
 * workflow). A failure before that releases the key, so the client may simply try again; a failure
 * after it (an ambiguous start, the answer not saved) keeps the key reserved, so a retry cannot
 * place the call twice. A reservation whose request never answered (the process died) may be taken
 * over after ten minutes.
 */
export async function withIdempotencyKey<T extends object>(
  dataSource: DataSource,
  scope: { organizationId: number; key: string | undefined; hash: string },
  produce: (starting: () => void) => Promise<T>,
): Promise<T> {
  const { organizationId, key, hash } = scope;
  if (key === undefined) return produce(() => undefined);
  const keys = createIdempotencyKeyRepository(dataSource);
  if (!(await keys.reserve(organizationId, key, hash))) {
    const first = await keys.find<T>(organizationId, key);
    if (!first) return withIdempotencyKey(dataSource, scope, produce);
    if (first.request_hash !== hash) throw new IdempotencyKeyReusedError();
    if (first.response === null) throw new ConflictError('A request with this Idempotency-Key is still in progress');
    return first.response;
  }
  let started = false;
  let response: T;
  try {
    response = await produce(() => {
      started = true;
    });
  } catch (error) {
    if (!started) await keys.release(organizationId, key);
    throw error;
  }
  await keys.saveResponse(organizationId, key, response);
  return response;
}
