import Router from '@koa/router';
import mount from 'koa-mount';
import serve from 'koa-static';
// The package's index also loads swagger-ui's 2 MB browser bundles into Node; the path is all we need.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path';

// Served from the npm package, never a CDN: the docs must work offline.
const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Switchboard API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

export function createDocsRouter(): Router {
  const router = new Router();
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = page;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript';
    ctx.body = init;
  });
  return router;
}

/** swagger-ui's static files under `/docs/assets`. */
export const docsAssets = () => mount('/docs/assets', serve(getAbsoluteFSPath(), { maxage: 86_400_000 }));
