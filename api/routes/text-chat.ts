import type { ApiDeps } from '../context';
import { openEventStream, streamedError, wantsEventStream, type EventStream } from '../event-stream';
import { defineRoute, errorResponse, type Route, type RouteContext } from '../route';
import { WorkflowIdParams } from '../schemas/agents';
import {
  TextChatEndRequest,
  TextChatMessageRequest,
  TextChatParams,
  TextChatReply,
  TextChatReplyEvents,
  TextChatRewindRequest,
  TextChatSession,
  TextChatStartRequest,
} from '../schemas/text-chat';
import type { z } from '../zod';
import { AgentVersionCache } from '../../domain/agents/version-cache';
import type { ReplyPiece } from '../../domain/text-chat/reply-stream';
import {
  endTextChat,
  rewindTextChat,
  sendTextChatMessage,
  startTextChat,
  streamTextChatMessage,
  textChatSession,
  type SessionRef,
  type SessionReply,
  type SessionView,
} from '../../domain/text-chat/sessions';

type SessionBody = z.output<typeof TextChatSession>;

const sessionBody = (view: SessionView): SessionBody => ({
  run_id: view.runId,
  name: view.name,
  status: view.status,
  revision: view.revision,
  turns: view.turns,
  transcript: view.transcript.map(({ at, role, text }) => ({ at, role, text })),
  gathered_context: view.gatheredContext,
  ...(view.endedBy ? { ended_by: view.endedBy } : {}),
  ...(view.disposition ? { disposition: view.disposition } : {}),
});

const replyBody = (reply: SessionReply): z.output<typeof TextChatReply> => ({
  ...sessionBody(reply),
  reply: reply.reply.map((line) => line.text).join('\n'),
});

const NOT_FOUND = errorResponse('Workflow not found; or no text chat session of this agent has this run id');
const STALE =
  'The session moved on (`expected_revision` is not its revision), is still answering the previous message, or has ended; nothing changed';
const TURN_FAILED = errorResponse('The agent could not answer (its language model failed); nothing changed');

/**
 * Turns the reply's pieces into `token` events, and a newer try of the agent's turn into `restart`;
 * pieces that come before the stream opens wait for it.
 */
class TokenEvents {
  private attempt = 1;
  private tokensSent = false;
  private events: EventStream | undefined;
  private readonly early: ReplyPiece[] = [];

  readonly relay = (piece: ReplyPiece): void => {
    if (!this.events) {
      this.early.push(piece);
      return;
    }
    // A try's first piece only says the turn has begun.
    if (piece.attempt < this.attempt || !piece.text) return;
    if (piece.attempt > this.attempt) {
      this.attempt = piece.attempt;
      if (this.tokensSent) this.events.send('restart', {});
      this.tokensSent = false;
    }
    this.events.send('token', { text: piece.text });
    this.tokensSent = true;
  };

  open(events: EventStream): void {
    this.events = events;
    this.early.splice(0).forEach(this.relay);
  }
}

/**
 * Text chat sessions: talking to an agent in writing, on the same conversation engine as its calls.
 * Each session is a run (mode `text_chat`) and a workflow; the routes only ask the domain.
 */
export function createTextChatRoutes({ dataSource, temporal, config }: ApiDeps): Route[] {
  const deps = {
    dataSource,
    temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    versions: new AgentVersionCache(dataSource),
  };
  const base = '/workflow/{workflow_id}/text-chat/sessions';

  /**
   * The reply as server-sent events: refusals are thrown before the stream opens (the error
   * middleware answers them); the agent's text follows as it comes, then the answer itself.
   */
  const streamReply = async (
    ctx: RouteContext,
    ref: SessionRef,
    message: { text: string; expectedRevision?: number },
  ): Promise<void> => {
    const tokens = new TokenEvents();
    const streamed = await streamTextChatMessage(deps, ref, message, tokens.relay);
    const events = openEventStream(ctx, () => void streamed.close());
    tokens.open(events);
    try {
      events.send('reply', replyBody(await streamed.reply));
    } catch (error) {
      events.send('error', streamedError(error, ctx.state.log));
    } finally {
      await streamed.close();
      events.end();
    }
  };
  return [
    defineRoute(
      {
        method: 'post',
        path: base,
        operationId: 'startTextChatSession',
        summary: 'Start a text chat session with an agent',
        description:
          "Opens a session with the agent's current version and answers once the agent has opened it: `reply` holds " +
          'its first words when it speaks first. The session is a run (mode `text_chat`) listed with the ' +
          "agent's runs; it ends at an end node, through the end route, or after the agent's " +
          '`text_chat_inactivity_timeout_seconds` (default 1800) with no message.',
        tags: ['text-chat'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowIdParams,
        body: TextChatStartRequest,
        responses: {
          201: { description: 'The session, opened', schema: TextChatReply },
          404: errorResponse('Workflow not found'),
          409: errorResponse('Agent is archived'),
          502: TURN_FAILED,
        },
      },
      async (ctx, { params, body, auth }) => {
        const opened = await startTextChat(deps, {
          organizationId: auth.organizationId,
          agentId: params.workflow_id,
          ...(body?.name ? { name: body.name } : {}),
          initialContext: body?.initial_context ?? {},
        });
        ctx.status = 201;
        ctx.body = replyBody(opened);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${base}/{run_id}`,
        operationId: 'getTextChatSession',
        summary: 'A text chat session as it stands',
        description: 'Its revision, transcript and gathered context; once ended, how it ended and its disposition.',
        tags: ['text-chat'],
        security: ['ApiKey', 'SessionToken'],
        params: TextChatParams,
        responses: { 200: { description: 'The session', schema: TextChatSession }, 404: NOT_FOUND },
      },
      async (ctx, { params, auth }) => {
        ctx.body = sessionBody(
          await textChatSession(deps, {
            organizationId: auth.organizationId,
            agentId: params.workflow_id,
            runId: params.run_id,
          }),
        );
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${base}/{run_id}/messages`,
        operationId: 'sendTextChatMessage',
        summary: "Send the person's message; answers the agent's reply",
        description:
          'Answers with the reply and the new `revision`. With `expected_revision`, a session that has moved on ' +
          'answers 409 and changes nothing. A message that brings the conversation to an end node ends the session: ' +
          'the answer then has `status` `ended` and the disposition. With `Accept: text/event-stream` the reply ' +
          'is streamed as server-sent events (`TextChatReplyEvents`) as the agent produces it, ending with the same ' +
          'answer; refusals (404, 409, 422) still answer before any event, as JSON.',
        tags: ['text-chat'],
        security: ['ApiKey', 'SessionToken'],
        params: TextChatParams,
        body: TextChatMessageRequest,
        responses: {
          200: {
            description: "The agent's reply; streamed as it is produced for `Accept: text/event-stream`",
            schema: TextChatReply,
            otherContent: { 'text/event-stream': TextChatReplyEvents },
          },
          404: NOT_FOUND,
          409: errorResponse(STALE),
          502: TURN_FAILED,
        },
      },
      async (ctx, { params, body, auth }) => {
        const ref = { organizationId: auth.organizationId, agentId: params.workflow_id, runId: params.run_id };
        const message = {
          text: body.text,
          ...(body.expected_revision === undefined ? {} : { expectedRevision: body.expected_revision }),
        };
        if (wantsEventStream(ctx)) await streamReply(ctx, ref, message);
        else ctx.body = replyBody(await sendTextChatMessage(deps, ref, message));
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${base}/{run_id}/rewind`,
        operationId: 'rewindTextChatSession',
        summary: 'Return a text chat session to an earlier turn',
        description:
          "Keeps the person's first `to_turn` messages and the agent's answers to them; what came after is " +
          "forgotten, and the next message continues from there. Tool calls made since stay in the run's log and " +
          'their tokens stay counted.',
        tags: ['text-chat'],
        security: ['ApiKey', 'SessionToken'],
        params: TextChatParams,
        body: TextChatRewindRequest,
        responses: {
          200: { description: 'The session at the earlier turn', schema: TextChatReply },
          404: NOT_FOUND,
          409: errorResponse(STALE),
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = replyBody(
          await rewindTextChat(
            deps,
            { organizationId: auth.organizationId, agentId: params.workflow_id, runId: params.run_id },
            {
              toTurn: body.to_turn,
              ...(body.expected_revision === undefined ? {} : { expectedRevision: body.expected_revision }),
            },
          ),
        );
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${base}/{run_id}/end`,
        operationId: 'endTextChatSession',
        summary: 'End a text chat session',
        description:
          "Ends the conversation as a caller's hang-up would: the node it stood in gets its extraction, then the " +
          'run is concluded (transcript, gathered context, disposition, usage) before this answers.',
        tags: ['text-chat'],
        security: ['ApiKey', 'SessionToken'],
        params: TextChatParams,
        body: TextChatEndRequest,
        responses: {
          200: { description: 'The ended session', schema: TextChatReply },
          404: NOT_FOUND,
          409: errorResponse(STALE),
          502: TURN_FAILED,
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = replyBody(
          await endTextChat(
            deps,
            { organizationId: auth.organizationId, agentId: params.workflow_id, runId: params.run_id },
            body?.expected_revision === undefined ? {} : { expectedRevision: body.expected_revision },
          ),
        );
      },
    ),
  ];
}
