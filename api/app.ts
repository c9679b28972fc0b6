import { createToolRoutes } from './routes/tools';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { createAuthServices, type AuthServices } from './auth/auth-services';
import { requireOperator } from './auth/operator-access';
import { requiredScope } from './auth/scopes';
import { codecCors, createCodecRouter } from './codec/codec-server';
import type { ApiDeps, AppState } from './context';
import { createDocsRouter, docsAssets } from './docs';
import { ValidationError } from '../domain/errors';
import { allowedMethods } from './middleware/allowed-methods';
import { authenticate } from './middleware/authenticate';
import { errorHandler } from './middleware/error-handler';
import { traceRequest } from './middleware/trace-request';
import { requestContext } from './middleware/request-context';
import { API_PREFIX, buildOpenApiDocument } from './openapi';
import type { Route } from './route';
import { createAgentRunRoutes } from './routes/agent-runs';
import { createAgentRoutes } from './routes/agents';
import { createApiKeyRoutes } from './routes/api-keys';
import { createAuthRoutes } from './routes/auth';
import { createCallRoutes } from './routes/calls';
import { createCampaignSourceRoutes } from './routes/campaign-sources';
import { createCampaignRoutes } from './routes/campaigns';
import { createCredentialRoutes } from './routes/credentials';
import { createDataLifecycleRoutes } from './routes/data-lifecycle';
import { createDoNotCallRoutes } from './routes/do-not-call';
import { createHealthRoutes } from './routes/health';
import { createKnowledgeBaseRoutes } from './routes/knowledge-base';
import { createPhoneNumberRoutes } from './routes/phone-numbers';
import { createHoldAudioRoutes } from './routes/hold-audio';
import { createRecordingRoutes } from './routes/recordings';
import { createSpeechCredentialRoutes } from './routes/speech-credentials';
import { createTelephonyConfigRoutes } from './routes/telephony-configs';
import { createTelephonyInboundRoutes } from './routes/telephony-inbound';
import { createTelephonyWebhookRoutes } from './routes/telephony-webhooks';
import { createTextChatRoutes } from './routes/text-chat';
import { createUsageRoutes } from './routes/usage';
import { createWebhookSigningSecretRoutes } from './routes/webhook-signing-secret';
import { createWebCallRoutes } from './routes/web-calls';
import { createWebCallPageRouter } from './web-call/page';
import { createWebhookSubscriptionRoutes } from './routes/webhook-subscriptions';
import { createImportSlots } from './uploads/import-slots';

/** Every route of the API, in one list: the router and the OpenAPI document are both built from it. */
export function createRoutes(deps: ApiDeps, auth: AuthServices): Route[] {
  const importSlots = createImportSlots(deps.config.CSV_MAX_CONCURRENT_IMPORTS);
  return [
    ...createHealthRoutes(deps),
    ...createAuthRoutes(deps, auth),
    ...createApiKeyRoutes(deps),
    ...createAgentRoutes(deps),
    ...createAgentRunRoutes(deps),
    ...createUsageRoutes(deps),
    ...createTelephonyConfigRoutes(deps),
    ...createPhoneNumberRoutes(deps),
    ...createSpeechCredentialRoutes(deps),
    ...createCredentialRoutes(deps),
    ...createWebhookSigningSecretRoutes(deps),
    ...createWebhookSubscriptionRoutes(deps),
    ...createDoNotCallRoutes(deps, importSlots),
    ...createCallRoutes(deps),
    ...createWebCallRoutes(deps),
    ...createRecordingRoutes(deps),
    ...createTelephonyWebhookRoutes(deps),
    ...createHoldAudioRoutes(),
    ...createTelephonyInboundRoutes(deps),
    ...createCampaignRoutes(deps),
    ...createCampaignSourceRoutes(deps, importSlots),
    ...createDataLifecycleRoutes(deps),
    ...createToolRoutes(deps),
    ...createTextChatRoutes(deps),
    ...createKnowledgeBaseRoutes(deps, importSlots),
  ];
}

/** Builds the Koa app; the caller decides where it listens. */
export function createApp(deps: ApiDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  // Only behind proxies we run, and only the entries they added: anything further left in
  // X-Forwarded-For was written by the client.
  app.proxy = deps.config.TRUST_PROXY > 0;
  app.maxIpsCount = deps.config.TRUST_PROXY;
  const auth = createAuthServices(deps);
  const routes = createRoutes(deps, auth);

  const api = new Router<AppState>({ prefix: API_PREFIX, exclusive: 'specificity' });
  for (const { spec, koaPath, handler } of routes) {
    // A route's declared credentials are what is enforced: it cannot be documented one way and run another.
    const guard = spec.security.length > 0 ? [authenticate(auth.credentials, spec.security, requiredScope(spec))] : [];
    api[spec.method](koaPath, ...guard, handler);
  }
  // Generated on first request, once: it takes a good part of a second, and most apps (tests build
  // one per case) never serve it.
  let openapi: ReturnType<typeof buildOpenApiDocument> | undefined;
  api.get('/openapi.json', (ctx) => {
    openapi ??= buildOpenApiDocument(routes, deps.config.PUBLIC_BASE_URL);
    ctx.body = openapi;
  });

  const root = new Router<AppState>();
  root.get('/metrics', async (ctx) => {
    requireOperator(ctx, deps.config);
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });

  // Errors thrown past the error handler (there should be none) are logged, never sent.
  app.on('error', (error: unknown) => {
    // A client that hangs up while a streamed body (a recording) is being sent is not a server fault.
    if ((error as { code?: unknown } | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE') {
      deps.logger.debug('client closed the connection before the response finished');
      return;
    }
    deps.logger.error({ err: error }, 'koa error');
  });

  const routers = [api, root, createCodecRouter(deps.config), createDocsRouter(), createWebCallPageRouter(deps.config)];
  app.use(traceRequest(auth.credentials));
  app.use(requestContext(deps.logger, deps.metrics));
  app.use(errorHandler());
  // Before the methods check: a browser's CORS preflight to the codec server is not a plain OPTIONS.
  app.use(codecCors(deps.config));
  // Before the body is read: a method the path does not take is 405 whatever the body holds.
  app.use(allowedMethods(routers));
  // Routes that stream their own body (CSV uploads) reach their handler with the request unread.
  const streamedPaths = new Set(
    routes.filter(({ spec }) => spec.streamedBody).map(({ spec }) => API_PREFIX + spec.path),
  );
  app.use(async (ctx, next) => {
    if (streamedPaths.has(ctx.path)) ctx.disableBodyParser = true;
    await next();
  });
  app.use(
    bodyParser({
      // Form bodies for provider webhooks (Twilio, Plivo, Vobiz); `rawBody` keeps the bytes they sign.
      enableTypes: ['json', 'form'],
      jsonLimit: deps.config.JSON_BODY_LIMIT_BYTES,
      encoding: 'utf-8',
      onError: (error) => {
        // Malformed JSON is a validation problem (422, as FastAPI answers); size limits stay 413.
        if (error instanceof SyntaxError) {
          throw new ValidationError([{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
        }
        throw error;
      },
    }),
  );
  app.use(docsAssets());
  for (const router of routers) app.use(router.routes());
  return app;
}
