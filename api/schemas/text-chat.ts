import { z } from '../zod';
import { IdParam, name } from './common';
import { boundedJsonObject } from './limits';

export const TextChatParams = z.object({
  workflow_id: IdParam.openapi({ example: 12 }),
  run_id: IdParam.openapi({ example: 501 }),
});

/** A revision a change follows; any other answers 409 and changes nothing. */
const ExpectedRevision = z
  .number()
  .int()
  .min(0)
  .max(1_000_000_000)
  .optional()
  .openapi({
    description:
      "The session's `revision` the sender last saw. When given and the session has moved on (another message, " +
      'a rewind), the request answers 409 and changes nothing.',
    example: 1,
  });

export const TextChatStartRequest = z
  .object({
    name: name(255).optional().openapi({ description: "The run's name; default `text-chat-<run_id>`." }),
    initial_context: boundedJsonObject("Variables for the prompts, as a call's `initial_context`.").nullish(),
  })
  .optional()
  .openapi('TextChatStartRequest', {
    example: { name: 'Ada tries the reminder', initial_context: { first_name: 'Ada' } },
  });

export const TextChatMessageRequest = z
  .object({
    text: name(4000).openapi({ description: "The person's message.", example: 'Yes, tomorrow at ten suits me.' }),
    expected_revision: ExpectedRevision,
  })
  .openapi('TextChatMessageRequest', { example: { text: 'Yes, tomorrow at ten suits me.', expected_revision: 0 } });

export const TextChatRewindRequest = z
  .object({
    to_turn: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .openapi({
        description:
          "The person's messages to keep: the session returns to just after the agent answered the last of them " +
          "(0: back to the agent's opening). Must be below `turns`.",
        example: 1,
      }),
    expected_revision: ExpectedRevision,
  })
  .openapi('TextChatRewindRequest', { example: { to_turn: 0, expected_revision: 2 } });

export const TextChatEndRequest = z
  .object({ expected_revision: ExpectedRevision })
  .optional()
  .openapi('TextChatEndRequest', { example: { expected_revision: 2 } });

const TranscriptLine = z
  .object({
    at: z.string().openapi({ format: 'date-time' }),
    role: z.enum(['user', 'assistant', 'tool']).openapi({
      description: '`tool`: a tool call the agent made, once the session has ended (`function(arguments) → outcome`).',
    }),
    text: z.string(),
  })
  .openapi('TextChatLine');

const EXAMPLE_LINES = [
  { at: '2026-03-02T15:04:10.000Z', role: 'assistant' as const, text: 'Hello Ada, this is a reminder call.' },
  { at: '2026-03-02T15:04:15.000Z', role: 'user' as const, text: 'Yes, tomorrow at ten suits me.' },
  { at: '2026-03-02T15:04:16.000Z', role: 'assistant' as const, text: 'Confirm.' },
];

const sessionFields = {
  run_id: z.number().int(),
  name: z.string(),
  status: z.enum(['open', 'ended']),
  revision: z
    .number()
    .int()
    .nullable()
    .openapi({
      description:
        'Moves on with every message answered and every rewind. Null for a session that ended long ago ' +
        '(its workflow history is gone; its run keeps the rest).',
    }),
  turns: z.number().int().openapi({ description: "The person's messages answered and kept." }),
  transcript: z.array(TranscriptLine),
  gathered_context: z.record(z.string(), z.unknown()),
  ended_by: z.string().optional().openapi({
    description:
      '`end_node`, `callee_hangup` (ended through the API), `user_idle` (the inactivity timeout), `max_duration`.',
  }),
  disposition: z.string().optional().openapi({ description: "The run's disposition, once it is concluded." }),
};

const EXAMPLE_SESSION = {
  run_id: 501,
  name: 'text-chat-501',
  status: 'open' as const,
  revision: 1,
  turns: 1,
  transcript: EXAMPLE_LINES,
  gathered_context: {},
};

export const TextChatSession = z.object(sessionFields).openapi('TextChatSession', { example: EXAMPLE_SESSION });

export const TextChatReply = z
  .object({
    ...sessionFields,
    reply: z.string().openapi({
      description: 'What the agent wrote in answer (its lines joined by a line break); empty when it wrote nothing.',
    }),
  })
  .openapi('TextChatReply', { example: { ...EXAMPLE_SESSION, reply: 'Confirm.' } });

export const TextChatReplyEvents = z.string().openapi('TextChatReplyEvents', {
  description:
    'Server-sent events, answered when the request sends `Accept: text/event-stream`: `token` events ' +
    '(`{"text"}`) carry the reply\'s text as the agent produces it (a language model\'s tokens as they ' +
    'stream; the offline policy, word by word), lines separated by a line break; `restart` (`{}`) says the ' +
    "agent's turn started over (its worker was lost): forget the tokens so far. The stream ends with one " +
    '`reply` event, whose data is the `TextChatReply` (the reply as kept, the new `revision`), or one ' +
    '`error` event (`{"status", "detail"}`, as the status and body an unstreamed request would have ' +
    'answered). Comment lines keep the stream alive while the agent thinks. A reader that loses the stream ' +
    'loses nothing: the reply is kept, and the session (GET) shows it.',
  example:
    'event: token\ndata: {"text":"Con"}\n\nevent: token\ndata: {"text":"firm."}\n\n' +
    'event: reply\ndata: {"run_id":501,"name":"text-chat-501","status":"open","revision":1,"turns":1,' +
    '"transcript":[],"gathered_context":{},"reply":"Confirm."}\n\n',
});
