import Router from '@koa/router';
import type { Config } from '../../platform/config';
import { WEB_CALL_PAGE_PATH } from '../../domain/calls/start-web-call';
import type { AppState } from '../context';
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from './page-assets';

/** Origins that may embed the web-call page and open its signalling socket: PUBLIC_BASE_URL's, then the configured ones. */
export function webCallOrigins(config: Pick<Config, 'PUBLIC_BASE_URL' | 'WEB_CALL_ALLOWED_ORIGINS'>): string[] {
  const configured = (config.WEB_CALL_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  return [new URL(config.PUBLIC_BASE_URL).origin, ...configured];
}

/**
 * The page a browser talks to an agent from (`/web-call#run=…&token=…`), its script and style.
 * Only same-origin scripts, styles and connections; only the allowed origins may frame it.
 */
export function createWebCallPageRouter(config: Config): Router<AppState> {
  const ancestors = ["'self'", ...webCallOrigins(config)].join(' ');
  const policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; media-src 'self' blob: mediastream:; " +
    `frame-ancestors ${ancestors}`;
  const router = new Router<AppState>();
  router.get(WEB_CALL_PAGE_PATH, (ctx) => {
    ctx.set('Content-Security-Policy', policy);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    ctx.body = PAGE_HTML;
  });
  router.get(`${WEB_CALL_PAGE_PATH}/page.js`, (ctx) => {
    ctx.type = 'application/javascript';
    ctx.body = PAGE_JS;
  });
  router.get(`${WEB_CALL_PAGE_PATH}/page.css`, (ctx) => {
    ctx.type = 'text/css';
    ctx.body = PAGE_CSS;
  });
  return router;
}
