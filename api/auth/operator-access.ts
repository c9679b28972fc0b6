import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../../platform/config';
import { ForbiddenError } from '../errors';

export const OPERATOR_TOKEN_HEADER = 'X-Operator-Token';
export const OPERATOR_ONLY = `Operator access only: send ${OPERATOR_TOKEN_HEADER} (OPERATOR_TOKEN)`;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when `sent` is OPERATOR_TOKEN (compared in constant time); never when no token is configured. */
export const isOperatorToken = (sent: string, config: Pick<Config, 'OPERATOR_TOKEN'>): boolean =>
  Boolean(config.OPERATOR_TOKEN && sent && timingSafeEqual(digest(sent), digest(config.OPERATOR_TOKEN)));

/**
 * A caller on this host with no proxy in front (TRUST_PROXY=0, no forwarding header): a proxy on
 * the same host would make every client look local.
 */
export function isLocalCaller(ctx: Context, config: Pick<Config, 'TRUST_PROXY'>): boolean {
  const forwarded = Boolean(ctx.get('X-Forwarded-For') || ctx.get('Forwarded'));
  const peer = ctx.req.socket.remoteAddress ?? '';
  return config.TRUST_PROXY === 0 && !forwarded && isLocal(peer);
}

/**
 * Operator routes (the deep health check, metrics) reveal internals and cost work, so they answer
 * only to `X-Operator-Token: <OPERATOR_TOKEN>`, or to a caller on this host (`isLocalCaller`).
 */
export function requireOperator(ctx: Context, config: Pick<Config, 'OPERATOR_TOKEN' | 'TRUST_PROXY'>): void {
  if (isOperatorToken(ctx.get(OPERATOR_TOKEN_HEADER), config) || isLocalCaller(ctx, config)) return;
  throw new ForbiddenError(OPERATOR_ONLY);
}

const isLocal = (address: string) =>
  address === '127.0.0.1' || address === '::1' || address.startsWith('::ffff:127.') || address.startsWith('127.');
