import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../../platform/config';
import { ForbiddenError } from '../errors';

export const OPERATOR_TOKEN_HEADER = 'X-Operator-Token';
export const OPERATOR_ONLY = `Operator access only: send ${OPERATOR_TOKEN_HEADER} (OPERATOR_TOKEN)`;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Operator routes (the deep health check, metrics) reveal internals and cost work, so they answer
 * only to `X-Operator-Token: <OPERATOR_TOKEN>`, or to a caller on this host when no proxy is in
 * front (TRUST_PROXY=0, no forwarding header): a proxy on the same host would make every
 * client look local.
 */
export function requireOperator(ctx: Context, config: Pick<Config, 'OPERATOR_TOKEN' | 'TRUST_PROXY'>): void {
  const sent = ctx.get(OPERATOR_TOKEN_HEADER);
  if (config.OPERATOR_TOKEN && sent && timingSafeEqual(digest(sent), digest(config.OPERATOR_TOKEN))) return;
  const forwarded = Boolean(ctx.get('X-Forwarded-For') || ctx.get('Forwarded'));
  const peer = ctx.req.socket.remoteAddress ?? '';
  if (config.TRUST_PROXY === 0 && !forwarded && isLocal(peer)) return;
  throw new ForbiddenError(OPERATOR_ONLY);
}

const isLocal = (address: string) =>
  address === '127.0.0.1' || address === '::1' || address.startsWith('::ffff:127.') || address.startsWith('127.');
