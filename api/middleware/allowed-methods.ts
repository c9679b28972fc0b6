import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../context';
import { AppError } from '../errors';

/**
 * Answers for methods before any route runs: `OPTIONS` lists the path's methods (204 with `Allow`),
 * a method the path does not take is 405 with `Allow` (TRACE and other unknown methods included).
 * A literal path (`/campaign/create`) belongs to its own routes only, never also to a parameter
 * route beside it (`/campaign/{campaign_id}`), so `GET /campaign/create` is 405, not a bad id.
 */
export function allowedMethods(routers: Router<AppState>[]): Middleware<AppState> {
  return async (ctx, next) => {
    const layers = routers
      .flatMap((router) => router.match(ctx.path, ctx.method).path)
      .filter((layer) => layer.methods.length > 0);
    if (layers.length === 0) {
      await next();
      return;
    }
    const literal = layers.filter((layer) => layer.paramNames.length === 0);
    const owners = literal.length > 0 ? literal : layers;
    const allowed = [...new Set([...owners.flatMap((layer) => layer.methods), 'OPTIONS'])];
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    if (!allowed.includes(ctx.method)) throw new AppError(405, 'Method Not Allowed', { Allow: allow });
    await next();
  };
}
