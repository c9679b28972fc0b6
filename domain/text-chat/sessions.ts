import { randomUUID } from 'node:crypto';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import type { Agent, Run } from '../../entities';
import { createAgentRepository } from '../../entities/repositories/agent.repository';
import { createTextChatSessionRepository } from '../../entities/repositories/text-chat-session.repository';
import type { textChatWorkflow } from '../../workflows/text-chat.workflow';
import {
  DEFAULT_TEXT_CHAT_INACTIVITY_TIMEOUT_SECONDS,
  endTextChatUpdate,
  openTextChatUpdate,
  rewindTextChatUpdate,
  sendTextChatMessageUpdate,
  TEXT_CHAT_CONFLICT,
  TEXT_CHAT_INVALID,
  TEXT_CHAT_TURN_FAILED,
  textChatQuery,
  textChatWorkflowId,
  type TextChatReply,
  type TextChatView,
} from '../../workflows/text-chat/definitions';
import { AgentIdAttribute, OrganizationIdAttribute } from '../../workflows/search-attributes';
import type { AgentVersionCache } from '../agents/version-cache';
import { callableVersion } from '../calls/call-targets';
import { ConflictError, NotFoundError, RefusedError, UpstreamError } from '../errors';
import type { TranscriptLine } from '../../agent-runtime/contract';
import { listenForReply, type ReplyPiece } from './reply-stream';

/** Started by its type name, checked against its signature: the API loads no workflow code. */
type TextChatWorkflow = typeof textChatWorkflow;
const TEXT_CHAT_WORKFLOW_TYPE = 'textChatWorkflow';

/** The longest an agent's reply may take: three tries of its turn (two minutes each) and their pauses. */
const REPLY_TIMEOUT_MS = 7 * 60_000;

export interface TextChatDeps {
  dataSource: DataSource;
  temporal: Client;
  taskQueue: string;
  versions: AgentVersionCache;
}

/** Who asks about which agent's session. */
export interface SessionRef {
  organizationId: number;
  agentId: number;
  runId: number;
}

/** A session's view, as the API shows it; `revision` null once its workflow's history is gone. */
export type SessionView = Omit<TextChatView, 'revision'> & { revision: number | null; name: string };
export type SessionReply = SessionView & { reply: TranscriptLine[] };

const withinDeadline = <T>(temporal: Client, call: () => Promise<T>): Promise<T> =>
  temporal.connection.withDeadline(Date.now() + REPLY_TIMEOUT_MS, call);

async function agentOf(dataSource: DataSource, organizationId: number, agentId: number): Promise<Agent> {
  const agent = await createAgentRepository(dataSource).findOwned(organizationId, agentId);
  if (!agent) throw new NotFoundError('Workflow not found');
  return agent;
}

/** The session's run, in the caller's organization and of the agent named; 404 otherwise. */
async function sessionRun(dataSource: DataSource, ref: SessionRef): Promise<Run> {
  const run = await createTextChatSessionRepository(dataSource).findSession(ref);
  if (!run) throw new NotFoundError('Text chat session not found');
  return run;
}

const inactivityTimeoutOf = (configurations: Record<string, unknown>): number => {
  const value = configurations.text_chat_inactivity_timeout_seconds;
  return typeof value === 'number' && value > 0 ? value : DEFAULT_TEXT_CHAT_INACTIVITY_TIMEOUT_SECONDS;
};

/** The workflow's refusal of an Update, as the domain's: stale or busy 409, impossible 422, failed turn 502. */
function refusalOf(error: unknown): Error {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    const { type, message } = error.cause;
    if (type === TEXT_CHAT_CONFLICT) return new ConflictError(message);
    if (type === TEXT_CHAT_INVALID) return new RefusedError(message);
    if (type === TEXT_CHAT_TURN_FAILED) return new UpstreamError(message);
  }
  if (error instanceof WorkflowNotFoundError) return new ConflictError('The session has ended');
  return error as Error;
}

/**
 * Opens a text chat session with the agent's current version: a run (mode `text_chat`) and its
 * workflow (`text-chat-<runId>`), and answers once the agent has opened (its first words, if any).
 * A failed start leaves the run completed with `call_status` `error`.
 */
export async function startTextChat(
  deps: TextChatDeps,
  request: { organizationId: number; agentId: number; name?: string; initialContext: Record<string, unknown> },
): Promise<SessionReply> {
  const { dataSource, temporal } = deps;
  const agent = await agentOf(dataSource, request.organizationId, request.agentId);
  const version = await callableVersion(deps.versions, agent);
  const sessions = createTextChatSessionRepository(dataSource);
  const run = await sessions.transaction(async (statements) => {
    const id = await statements.insertSession({
      organizationId: agent.organizationId,
      agentId: agent.id,
      agentVersionId: version.id,
      initialContext: request.initialContext,
    });
    const name = request.name ?? `text-chat-${id}`;
    await statements.nameSession(id, name, textChatWorkflowId(id));
    return { id, name };
  });
  let handle: WorkflowHandle<TextChatWorkflow>;
  try {
    handle = await withinDeadline(temporal, () =>
      temporal.workflow.start<TextChatWorkflow>(TEXT_CHAT_WORKFLOW_TYPE, {
        workflowId: textChatWorkflowId(run.id),
        taskQueue: deps.taskQueue,
        args: [{ runId: run.id, inactivityTimeoutSeconds: inactivityTimeoutOf(version.workflowConfigurations) }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: AgentIdAttribute, value: agent.id },
          { key: OrganizationIdAttribute, value: agent.organizationId },
        ],
        memo: { run_id: run.id },
        staticSummary: `Text chat with agent ${agent.id} · run ${run.id}`,
      }),
    );
  } catch (error) {
    await sessions.concludeUnstarted(run.id);
    throw error;
  }
  const opened = await withinDeadline(temporal, () => handle.executeUpdate(openTextChatUpdate));
  return { ...opened, name: run.name };
}

/** A session as it stands: from its workflow while it runs, its result once it ended, its run after that. */
export async function textChatSession(deps: TextChatDeps, ref: SessionRef): Promise<SessionView> {
  const run = await sessionRun(deps.dataSource, ref);
  const handle = deps.temporal.workflow.getHandle<TextChatWorkflow>(textChatWorkflowId(run.id));
  try {
    const description = await withinDeadline(deps.temporal, () => handle.describe());
    const view =
      description.status.name === 'RUNNING'
        ? await withinDeadline(deps.temporal, () => handle.query(textChatQuery))
        : await withinDeadline(deps.temporal, () => handle.result());
    return { ...view, name: run.name };
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  const transcript = Array.isArray(run.logs.transcript) ? (run.logs.transcript as TranscriptLine[]) : [];
  return {
    runId: run.id,
    name: run.name,
    status: run.isCompleted ? 'ended' : 'open',
    revision: null,
    turns: transcript.filter((line) => line.role === 'user').length,
    transcript,
    gatheredContext: run.gatheredContext,
    ...(typeof run.logs.ended_by === 'string' ? { endedBy: run.logs.ended_by } : {}),
    ...(run.disposition ? { disposition: run.disposition } : {}),
  };
}

/** Sends one Update to the session's workflow and answers its reply with the run's name. */
async function update(
  deps: TextChatDeps,
  ref: SessionRef,
  send: (handle: WorkflowHandle<TextChatWorkflow>) => Promise<TextChatReply>,
): Promise<SessionReply> {
  const run = await sessionRun(deps.dataSource, ref);
  if (run.isCompleted) throw new ConflictError('The session has ended');
  const handle = deps.temporal.workflow.getHandle<TextChatWorkflow>(textChatWorkflowId(run.id));
  try {
    return { ...(await withinDeadline(deps.temporal, () => send(handle))), name: run.name };
  } catch (error) {
    throw refusalOf(error);
  }
}

/** The person's message; the agent's reply and the new revision. */
export const sendTextChatMessage = (
  deps: TextChatDeps,
  ref: SessionRef,
  message: { text: string; expectedRevision?: number },
): Promise<SessionReply> =>
  update(deps, ref, (handle) => handle.executeUpdate(sendTextChatMessageUpdate, { args: [message] }));

/** Back to just after the agent answered the person's `toTurn`-th message. */
export const rewindTextChat = (
  deps: TextChatDeps,
  ref: SessionRef,
  rewind: { toTurn: number; expectedRevision?: number },
): Promise<SessionReply> =>
  update(deps, ref, (handle) => handle.executeUpdate(rewindTextChatUpdate, { args: [rewind] }));

/** Ends the session: the run is concluded (transcript, disposition, usage) before this answers. */
export const endTextChat = (
  deps: TextChatDeps,
  ref: SessionRef,
  end: { expectedRevision?: number },
): Promise<SessionReply> => update(deps, ref, (handle) => handle.executeUpdate(endTextChatUpdate, { args: [end] }));

/** A message being answered, its reply relayed as it is produced. */
export interface StreamedReply {
  /** The session once the agent answered, or the refusal `sendTextChatMessage` would throw. */
  readonly reply: Promise<SessionReply>;
  /** Stops the relay (the reader left); the agent's answer goes on and stays in the session. */
  close(): Promise<void>;
}

/**
 * Sends the person's message as `sendTextChatMessage` does, and hands each piece of the reply to
 * `onPiece` as the agent produces it. Resolves once the agent's turn has begun: whatever the session
 * refuses (a stale revision, a busy or ended session) or a turn that fails before it begins is thrown
 * instead, as unstreamed. The answer in `reply` is the truth; pieces are a preview of it that may
 * miss some on the way.
 */
export async function streamTextChatMessage(
  deps: TextChatDeps,
  ref: SessionRef,
  message: { text: string; expectedRevision?: number },
  onPiece: (piece: ReplyPiece) => void,
): Promise<StreamedReply> {
  const run = await sessionRun(deps.dataSource, ref);
  if (run.isCompleted) throw new ConflictError('The session has ended');
  const streamId = randomUUID().replace(/-/g, '');
  let begun!: () => void;
  const turnBegun = new Promise<void>((resolve) => (begun = resolve));
  const listener = await listenForReply(deps.dataSource, streamId, (piece) => {
    begun();
    onPiece(piece);
  });
  const handle = deps.temporal.workflow.getHandle<TextChatWorkflow>(textChatWorkflowId(run.id));
  try {
    // A refused Update is answered as soon as its validator ran; the handle's result then holds the refusal.
    const taken = await withinDeadline(deps.temporal, () =>
      handle.startUpdate(sendTextChatMessageUpdate, {
        args: [{ ...message, streamId }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      }),
    );
    const reply = withinDeadline(deps.temporal, () => taken.result()).then(
      (answered): SessionReply => ({ ...answered, name: run.name }),
      (error: unknown) => {
        throw refusalOf(error);
      },
    );
    await Promise.race([turnBegun, reply]);
    return { reply, close: () => listener.close() };
  } catch (error) {
    await listener.close();
    throw refusalOf(error);
  }
}
