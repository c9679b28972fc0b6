import { WebhookSigningSecrets, type SigningSecretView } from '../../domain/webhooks/signing-secrets';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { NotFoundError } from '../../domain/errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { RotatedWebhookSigningSecret, WebhookSigningSecret } from '../schemas/webhook-signing-secret';

const PATH = '/organizations/webhook-signing-secret';
const NOT_FOUND = 'The organization has no webhook signing secret yet: rotating creates one';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['webhooks'];

const VERIFYING =
  'Each post-call webhook carries `webhook-id` (the delivery id), `webhook-timestamp` (unix seconds) and ' +
  '`webhook-signature: v2,<base64>`, HMAC-SHA256 keyed with the UTF-8 bytes of the secret over the lines ' +
  '`v2`, the method, the URL, the id, the timestamp and the raw body (empty for GET), joined by `\\n`. A receiver ' +
  'accepts the request when any `v2` entry matches and the timestamp is within 5 minutes of its clock. During ' +
  "a rotation's overlap there are two entries, the new secret's first. The deprecated `X-Switchboard-Signature` " +
  '(`t=<t>,v1=<hex>` over `<t>.<raw body>`) is sent beside it while `WEBHOOK_SIGNATURE_V1` is on. Steps and ' +
  'code: docs/guides/post-call-webhooks.md.';

const answer = (view: SigningSecretView) => ({
  secret: view.secret,
  created_at: view.createdAt.toISOString(),
  previous_secret_expires_at: view.previousExpiresAt?.toISOString() ?? null,
});

export function createWebhookSigningSecretRoutes({ config, dataSource }: ApiDeps): Route[] {
  const signingSecrets = new WebhookSigningSecrets(dataSource, loadSecrets(config));
  const overlapSeconds = config.WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS;

  return [
    defineRoute(
      {
        method: 'get',
        path: PATH,
        operationId: 'getWebhookSigningSecret',
        summary: "The organization's post-call webhook signing secret, masked",
        description:
          'Masked, with when it was created and until when the previous one still signs. Each organization ' +
          `has its own secret, created by its first delivery or rotation. ${VERIFYING}`,
        tags,
        security,
        responses: {
          200: { description: 'The secret, masked', schema: WebhookSigningSecret },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { auth }) => {
        const view = await signingSecrets.view(auth.organizationId);
        if (!view) throw new NotFoundError(NOT_FOUND);
        ctx.body = answer(view);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${PATH}/rotate`,
        operationId: 'rotateWebhookSigningSecret',
        summary: 'Replace the post-call webhook signing secret',
        description:
          'Creates a new secret and answers it in full: this answer is the only place it is ever shown. ' +
          `Deliveries are signed with both the new and the previous secret for ${overlapSeconds} seconds ` +
          '(`WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS`; `previous_secret_expires_at` says until when), then with ' +
          'the new one only; rotating again within the overlap drops the older secret at once. The first ' +
          `rotation of an organization with no secret creates one, with no overlap. ${VERIFYING}`,
        tags,
        security,
        responses: { 200: { description: 'The new secret, in full', schema: RotatedWebhookSigningSecret } },
      },
      async (ctx, { auth }) => {
        ctx.body = answer(await signingSecrets.rotate(auth.organizationId, overlapSeconds));
      },
    ),
  ];
}
