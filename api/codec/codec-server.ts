import Router from '@koa/router';
import type { Payload } from '@temporalio/common';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { ValidationError } from '../../domain/errors';
import type { Config } from '../../platform/config';
import { PayloadEncryptionCodec } from '../../platform/payload-codec';
import { payloadKeys } from '../../platform/payload-keys';
import { isLocalCaller, isOperatorToken, OPERATOR_TOKEN_HEADER } from '../auth/operator-access';
import type { AppState } from '../context';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { parseRequest } from '../validation';
import { hasCodecSession, issueCodecSession } from './codec-session';

/** Where the Temporal UI and CLI are pointed (`--ui-codec-endpoint`, `--codec-endpoint`); they add `/encode` and `/decode`. */
export const CODEC_PATH = '/codec';

const BEARER = /^Bearer +(\S+)$/i;
/** Linear: one character class, no nested repetition. */
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: 'must be base64' });

/**
 * Temporal's codec server protocol: the JSON form of `temporal.api.common.v1.Payloads`, in which
 * empty fields are left out (the CLI sends `{}` for no payloads).
 */
const payloadsBody = z.object({
  payloads: z
    .array(
      z.object({
        metadata: z.record(z.string(), base64).optional(),
        data: base64.optional(),
      }),
    )
    .default([]),
});
type PayloadJson = z.infer<typeof payloadsBody>['payloads'][number];

const fromJson = (payload: PayloadJson): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  ),
  data: Buffer.from(payload.data ?? '', 'base64'),
});

const toJson = (payload: Payload): PayloadJson => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

const CODEC_ONLY =
  `Codec server for operators: send ${OPERATOR_TOKEN_HEADER} or Authorization: Bearer (OPERATOR_TOKEN), ` +
  `sign in at ${CODEC_PATH}/login, or call from the API's own host`;

/**
 * Decrypted payloads hold transcripts and contact data of every organization, so only an operator
 * may use the codec server: OPERATOR_TOKEN (as `X-Operator-Token`, or as a bearer token as the
 * `temporal` CLI's `--codec-auth` sends it), a codec session cookie from `/codec/login` (what a
 * browser's Temporal UI can send), or a caller on this host with no proxy in front.
 */
function requireCodecOperator(ctx: Context, config: Pick<Config, 'OPERATOR_TOKEN' | 'TRUST_PROXY'>): void {
  const sent = ctx.get(OPERATOR_TOKEN_HEADER) || BEARER.exec(ctx.get('Authorization'))?.[1] || '';
  if (isOperatorToken(sent, config) || isLocalCaller(ctx, config)) return;
  if (config.OPERATOR_TOKEN && hasCodecSession(ctx, config.OPERATOR_TOKEN)) return;
  if (sent) throw new ForbiddenError(CODEC_ONLY);
  throw new UnauthorizedError(CODEC_ONLY);
}

/**
 * CORS for the Temporal UIs of TEMPORAL_UI_ORIGINS: the UI calls the codec server from the
 * operator's browser, with credentials. Preflights are answered here, before authentication, as
 * browsers send them without credentials.
 */
export function codecCors(config: Pick<Config, 'TEMPORAL_UI_ORIGINS'>): Middleware<AppState> {
  const allowed = new Set(config.TEMPORAL_UI_ORIGINS);
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${CODEC_PATH}/`)) {
      await next();
      return;
    }
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    if (origin && allowed.has(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
      if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
        ctx.set('Access-Control-Allow-Methods', 'POST');
        ctx.set('Access-Control-Allow-Headers', `Content-Type, X-Namespace, Authorization, ${OPERATOR_TOKEN_HEADER}`);
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return;
      }
    }
    await next();
  };
}

const LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard codec server</title></head>
<body>
<h1>Decrypt Temporal payloads in this browser</h1>
<p>Enter OPERATOR_TOKEN. The Temporal UI can then decrypt workflow payloads through this codec server for 12 hours.</p>
<form method="post" action="${CODEC_PATH}/login">
<label>Operator token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">Sign in</button>
</form>
</body></html>
`;

const loginBody = z.object({ token: z.string() });

/** `/codec/encode`, `/codec/decode` (Temporal's codec server protocol) and the operator's browser sign-in. */
export function createCodecRouter(config: Config): Router<AppState> {
  const codec = new PayloadEncryptionCodec(payloadKeys(config));
  const router = new Router<AppState>({ prefix: CODEC_PATH });
  for (const direction of ['encode', 'decode'] as const) {
    router.post(`/${direction}`, async (ctx) => {
      requireCodecOperator(ctx, config);
      const { body } = parseRequest({ body: { schema: payloadsBody, value: ctx.request.body } }) as {
        body: z.infer<typeof payloadsBody>;
      };
      const payloads = body.payloads.map(fromJson);
      if (direction === 'encode') {
        ctx.body = { payloads: (await codec.encode(payloads)).map(toJson) };
        return;
      }
      const decoded = await Promise.all(
        payloads.map((payload, index) =>
          codec.decode([payload]).then(
            ([plain]) => plain ?? payload,
            (error: unknown) => {
              const msg = `could not be decrypted: ${error instanceof Error ? error.message : String(error)}`;
              throw new ValidationError([{ loc: ['body', 'payloads', index], msg, type: 'value_error' }]);
            },
          ),
        ),
      );
      ctx.body = { payloads: decoded.map(toJson) };
    });
  }
  router.get('/login', (ctx) => {
    ctx.type = 'html';
    ctx.body = LOGIN_PAGE;
  });
  router.post('/login', (ctx) => {
    const { body } = parseRequest({ body: { schema: loginBody, value: ctx.request.body } }) as {
      body: z.infer<typeof loginBody>;
    };
    if (!config.OPERATOR_TOKEN || !isOperatorToken(body.token, config)) throw new ForbiddenError(CODEC_ONLY);
    issueCodecSession(ctx, config.OPERATOR_TOKEN);
    ctx.type = 'html';
    ctx.body = '<!doctype html><p>Signed in: the Temporal UI can decrypt payloads in this browser for 12 hours.</p>\n';
  });
  return router;
}
