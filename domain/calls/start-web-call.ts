import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Agent } from '../../entities';
import { createRunRepository } from '../../entities/repositories/run.repository';
import { webCallStatements } from '../../entities/repositories/web-call.repository';
import type { Secrets } from '../../telephony/secrets';
import { WEB_CALL_JOIN_SECONDS, WEB_PROVIDER } from '../../telephony/providers/web/web-calls';
import { mediaTokenKey, signMediaToken } from '../../voice/media-token';
import { callWorkflowId } from '../../workflows/definitions';
import type { CallableVersion } from './call-targets';
import { maxCallDurationOf, startCallWorkflow } from './start-call';

/** The answer to a web-call request (documented by api/schemas/web-calls.ts). */
export interface WebCallStarted {
  workflow_run_id: number;
  workflow_run_name: string;
  /** Single use, worth nothing once `expires_at` passed without the call having started. */
  token: string;
  expires_at: string;
  /** The page that talks to the agent, with the token in its fragment (never sent to a server log). */
  page_url: string;
  /** The signalling WebSocket, token included, for clients that bring their own page. */
  signalling_url: string;
}

export interface WebCallDeps {
  dataSource: DataSource;
  temporal: Client;
  taskQueue: string;
  publicBaseUrl: string;
  secrets: Pick<Secrets, 'deriveKey'>;
}

/** The path of the page a browser talks to an agent from (outside the API prefix: it is a page). */
export const WEB_CALL_PAGE_PATH = '/web-call';

/** The signalling WebSocket of a web call: the run's media endpoint for the `web` provider. */
export const webCallSignallingUrl = (publicBaseUrl: string, runId: number, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/api/v1/telephony/${WEB_PROVIDER}/media/${runId}?token=${token}`;

/**
 * Creates a web call: its run (provider `web`, inbound: the person calls the agent), its row in
 * `web_calls` and its call workflow, which follows it like any call from here on. The token signs
 * the run and expires after WEB_CALL_JOIN_SECONDS; the run's single media stream makes it single use.
 */
export async function startWebCall(
  deps: WebCallDeps,
  agent: Agent,
  version: CallableVersion,
  initialContext: Record<string, unknown>,
  now = Date.now(),
): Promise<WebCallStarted> {
  const providerCallId = `web-${randomUUID()}`;
  const joinBy = new Date(now + WEB_CALL_JOIN_SECONDS * 1000);
  const id = await createRunRepository(deps.dataSource).transaction(async (runs, manager) => {
    const runId = await runs.insertWebRun({
      organizationId: agent.organizationId,
      agentId: agent.id,
      agentVersionId: version.id,
      provider: WEB_PROVIDER,
      providerCallId,
      initialContext: { ...initialContext, direction: 'inbound', provider: WEB_PROVIDER },
    });
    await runs.nameWebRun(runId, `call-${runId}`, callWorkflowId(runId));
    await webCallStatements(manager).insert(runId, joinBy);
    return runId;
  });
  await startCallWorkflow(deps, { id, otherParty: null }, agent, {
    runId: id,
    attempt: 1,
    maxDurationSeconds: maxCallDurationOf(version),
    direction: 'inbound',
    providerCallId,
    conversation: 'live',
    provider: WEB_PROVIDER,
  });
  const token = signMediaToken(
    mediaTokenKey(deps.secrets),
    { provider: WEB_PROVIDER, runId: id },
    now,
    WEB_CALL_JOIN_SECONDS,
  );
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  return {
    workflow_run_id: id,
    workflow_run_name: `call-${id}`,
    token,
    expires_at: joinBy.toISOString(),
    page_url: `${base}${WEB_CALL_PAGE_PATH}#run=${id}&token=${token}`,
    signalling_url: webCallSignallingUrl(base, id, token),
  };
}
