import type { DataSource } from 'typeorm';
import type { Run } from '../../entities';
import { createWebhookRepository } from '../../entities/repositories/webhook.repository';
import type { Resolver } from '../../platform/address-guard';
import type { Secrets } from '../../telephony/secrets';
import { openSecret } from '../agents/agent-secrets';
import { renderTemplate } from '../agents/templates';
import type { AgentVersionCache } from '../agents/version-cache';
import { credentialHeaders } from '../credentials/credential-types';
import { openCredential } from '../credentials/credentials';
import { WebhookDeliveryError, WebhookRefusedError, WebhookRejectedError } from './delivery-errors';
import { renderPayload, type PayloadContext } from './payload';
import { enabledWebhookNodes } from './post-call-nodes';
import { DEFAULT_SEND_LIMITS, sendWebhook, type SendLimits } from './send';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import { signedUrl, v2Headers } from './signature-v2';
import { WebhookSigningSecrets } from './signing-secrets';

export interface PostCallWebhookDeps {
  dataSource: DataSource;
  /** Agent version contents, read once per process. */
  versions: AgentVersionCache;
  /** Opens the organizations' signing secrets, credentials and header values (sealed under SECRETS_KEY). */
  secrets: Secrets;
  /** `ALLOW_PRIVATE_WEBHOOKS`. */
  allowPrivate: boolean;
  /** `WEBHOOK_SIGNATURE_V1`: the legacy body-only `X-Switchboard-Signature` is sent beside `v2`. True by default. */
  signV1?: boolean;
  /** Socket silence, whole-delivery deadline and answer size; DEFAULT_SEND_LIMITS by default. */
  limits?: Omit<SendLimits, 'signal'>;
  /** DNS, replaceable in tests; the system resolver by default. */
  resolve?: Resolver;
}

/** `runs.logs.webhooks[<node id>]`: the delivery state of one webhook node of the run. */
export interface WebhookLogEntry {
  node_id: string;
  name: string;
  url: string;
  method: string;
  /** `retrying` after a failed attempt that will be tried again; `failed`/`refused` are final. */
  status: 'delivered' | 'retrying' | 'failed' | 'refused';
  attempts: number;
  http_status?: number;
  /** The last failure; null once delivered. */
  error?: string | null;
  at: string;
}

export interface DeliverWebhookInput {
  runId: number;
  nodeId: string;
}

/** One delivery attempt: its number (from 1) and what aborts it (the activity's cancellation). */
export interface DeliveryAttempt extends DeliverWebhookInput {
  attempt: number;
  signal: AbortSignal;
}

export interface WebhookFailureInput extends DeliverWebhookInput {
  /** The failure's type (an error class name, or a Temporal timeout) and message. */
  errorType: string;
  message: string;
}

/** Without a `payload_template`, the receiver gets the run's outcome and both contexts. */
const DEFAULT_PAYLOAD = {
  workflow_run_id: '{{workflow_run_id}}',
  call_status: '{{call_status}}',
  call_duration_seconds: '{{call_duration_seconds}}',
  transcript_url: '{{transcript_url}}',
  initial_context: '{{initial_context}}',
  gathered_context: '{{gathered_context}}',
};

/** The post-call webhook nodes of a finished run: rendered, signed, sent, and logged on the run. */
export function createPostCallWebhooks({
  dataSource,
  versions,
  secrets,
  allowPrivate,
  signV1 = true,
  limits = DEFAULT_SEND_LIMITS,
  resolve,
}: PostCallWebhookDeps) {
  const webhooks = createWebhookRepository(dataSource);
  const signingSecrets = new WebhookSigningSecrets(dataSource, secrets);

  /** Upserts one node's entry in `logs.webhooks` in one statement, so parallel deliveries never overwrite each other. */
  const record = async (runId: number, entry: Partial<WebhookLogEntry> & { node_id: string }): Promise<void> => {
    await webhooks.mergeRunWebhookLog(runId, entry.node_id, JSON.stringify({ ...entry, at: new Date().toISOString() }));
  };

  const loadRun = (runId: number): Promise<Run> => webhooks.runOrFail(runId);

  /** The headers of the node's credential, read at delivery time: a credential edited since the call is sent as it is now. */
  const credentialHeadersOf = async (organizationId: number, uuid: string | undefined) => {
    if (!uuid) return {};
    const credential = await openCredential(dataSource, secrets, organizationId, uuid);
    if (!credential) throw new WebhookRefusedError(`Credential ${uuid} no longer exists in the organization`);
    return credentialHeaders(credential);
  };

  return {
    /**
     * Renders, signs and sends one webhook node's request against the finished run. Each attempt's
     * outcome is written to `logs.webhooks`; failures throw, typed for the workflow's retry policy.
     */
    async deliver({ runId, nodeId, attempt, signal }: DeliveryAttempt): Promise<{ httpStatus: number }> {
      const run = await loadRun(runId);
      const node = (await enabledWebhookNodes(versions, run.agentVersionId)).find(
        (candidate) => candidate.id === nodeId,
      );
      if (!node) throw new WebhookRefusedError(`Webhook node ${nodeId} is no longer in the run's agent version`);
      const target = {
        node_id: node.id,
        name: node.data.name,
        url: node.data.endpoint_url,
        method: node.data.http_method,
      };
      const context: PayloadContext = {
        initialContext: run.initialContext,
        gatheredContext: run.gatheredContext,
        run: {
          workflow_run_id: run.id,
          call_status: run.gatheredContext.call_status ?? null,
          call_duration_seconds: run.callDurationSeconds,
          transcript_url: run.transcriptUrl,
          recording_url: run.recordingUrl,
          cost_info: run.costInfo ?? {},
          annotations: run.annotations,
        },
      };
      const template =
        Object.keys(node.data.payload_template).length > 0 ? node.data.payload_template : DEFAULT_PAYLOAD;
      const body = node.data.http_method === 'GET' ? undefined : JSON.stringify(renderPayload(template, context));
      // The run's own organization's secret: another tenant's receiver cannot forge these.
      const signingKeys = await signingSecrets.signingKeys(run.organizationId);
      // A credential deleted since the call refuses the delivery (the workflow records it on the run).
      const authentication = await credentialHeadersOf(run.organizationId, node.data.credential_uuid);
      const deliveryId = `run-${run.id}/${node.id}`;
      const timestamp = Math.floor(Date.now() / 1000);
      let url: string;
      try {
        url = signedUrl(node.data.endpoint_url);
      } catch {
        url = node.data.endpoint_url;
      }
      const headers: Record<string, string> = {
        'user-agent': 'Switchboard-Webhooks/1',
        ...Object.fromEntries(
          node.data.custom_headers.map(({ key, value }) => [
            key,
            // Stored sealed: opened here, for this request only.
            renderTemplate(openSecret(value, secrets), {
              initialContext: context.initialContext,
              gatheredContext: context.gatheredContext,
            }),
          ]),
        ),
        ...authentication,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        // Stable across retries: receivers can drop a delivery they already processed.
        'x-switchboard-delivery': deliveryId,
        ...v2Headers(signingKeys, { method: node.data.http_method, url, id: deliveryId, timestamp, body: body ?? '' }),
        ...(signV1 ? { [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(signingKeys, body ?? '', timestamp) } : {}),
      };
      try {
        const httpStatus = await sendWebhook(
          { method: node.data.http_method, url, headers, body },
          { allowPrivate, resolve },
          { ...limits, signal },
        );
        await record(runId, {
          ...target,
          status: 'delivered',
          attempts: attempt,
          http_status: httpStatus,
          error: null,
        });
        return { httpStatus };
      } catch (error) {
        const final = error instanceof WebhookRefusedError || error instanceof WebhookRejectedError;
        const httpStatus =
          error instanceof WebhookRejectedError || error instanceof WebhookDeliveryError ? error.httpStatus : undefined;
        await record(runId, {
          ...target,
          status: error instanceof WebhookRefusedError ? 'refused' : final ? 'failed' : 'retrying',
          attempts: attempt,
          ...(httpStatus === undefined ? {} : { http_status: httpStatus }),
          error: (error as Error).message,
        });
        throw error;
      }
    },

    /** The workflow gave up on a node (attempts exhausted, timeout, refusal): its entry says so for good. */
    async recordFailure({ runId, nodeId, errorType, message }: WebhookFailureInput): Promise<void> {
      await record(runId, {
        node_id: nodeId,
        status: errorType === 'WebhookRefusedError' ? 'refused' : 'failed',
        error: message,
      });
    },
  };
}
