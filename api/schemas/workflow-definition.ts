import { z } from '../zod';
import { checkGraphRules } from '../../domain/agents/graph-rules';
import { GRAPH_LIMITS, JSON_LIMITS, TEXT_LIMITS } from '../../domain/limits';
import { boundedJsonObject, jsonBounds } from './limits';
import { ANALYSIS_PRESETS } from '../../domain/analysis/types';
import type { AgentGraph, GraphEdge, GraphNode } from '../../domain/agents/agent-graph';

/**
 * An agent's conversation graph, a React Flow document: `nodes[]` and `edges[]`. Unknown keys inside
 * a node's or an edge's `data` are dropped on save; other keys (`viewport`, node `width`, ...) are kept
 * for the editor.
 */

const name = z
  .string()
  .max(TEXT_LIMITS.name)
  .trim()
  .min(1)
  .openapi({ description: 'Shown in the editor; at least 1 character.' });
/** Short free text: greetings, conditions, extraction prompts. */
const shortText = z.string().max(TEXT_LIMITS.text);
/** Ids of recordings, credentials, tools and documents. */
const reference = z.string().max(TEXT_LIMITS.name);

const promptFields = {
  name,
  prompt: z
    .string()
    .max(TEXT_LIMITS.prompt)
    .trim()
    .min(1)
    .openapi({ description: 'May use `{{variables}}` (see docs/guides/agents.md).' }),
  allow_interrupt: z.boolean().default(false),
  add_global_prompt: z.boolean().default(true).openapi({ description: "Prepends the global node's prompt." }),
};

const extractionFields = {
  extraction_enabled: z.boolean().default(false),
  extraction_prompt: shortText.optional(),
  extraction_variables: z
    .array(
      z.object({
        name: z.string().max(TEXT_LIMITS.name).trim().min(1),
        type: z.enum(['string', 'number', 'boolean']),
        prompt: shortText.optional(),
      }),
    )
    .max(100)
    .default([]),
};

const toolFields = {
  tool_uuids: z.array(reference).max(100).optional(),
  document_uuids: z
    .array(reference)
    .max(100)
    .optional()
    .openapi({ description: 'Knowledge-base documents the node answers from (see docs/guides/knowledge-base.md).' }),
};

/** A typed value the post-call analysis extracts; an `enum` lists its `choices`. */
const analysisField = z
  .object({
    name: z
      .string()
      .max(TEXT_LIMITS.name)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'A field name is letters, digits and _, not starting with a digit'),
    type: z.enum(['string', 'enum', 'boolean', 'number']),
    description: shortText.default(''),
    examples: z.array(shortText).max(10).optional(),
    choices: z.array(z.string().max(TEXT_LIMITS.name).trim().min(1)).min(1).max(50).optional(),
  })
  .refine((field) => field.type !== 'enum' || field.choices !== undefined, {
    message: 'An enum field lists its choices',
    path: ['choices'],
  });

const position = z.object({ x: z.number(), y: z.number() }).default({ x: 0, y: 0 });

/** One node type: `{id, type, position, data}`, other editor keys kept. */
const node = <T extends string, D extends z.ZodObject>(type: T, data: D, description: string) =>
  z.looseObject({ id: reference.min(1), type: z.literal(type), position, data }).openapi({ description });

export const StartCallNode = node(
  'startCall',
  z.object({
    ...promptFields,
    ...extractionFields,
    ...toolFields,
    greeting: shortText.optional(),
    greeting_type: z.enum(['text', 'audio']).default('text'),
    greeting_recording_id: reference.optional(),
    delayed_start: z.boolean().default(false),
    delayed_start_duration: z.number().min(0.1).max(10).default(2),
    pre_call_fetch_mode: z.enum(['disabled', 'always', 'inbound', 'outbound']).default('disabled'),
    pre_call_fetch_url: z.url().max(TEXT_LIMITS.url).optional(),
    pre_call_fetch_credential_uuid: reference.optional(),
    mcp_tool_filters: boundedJsonObject().optional(),
  }),
  'Where every call starts: exactly one, with no incoming edge.',
).openapi('StartCallNode');

export const AgentNode = node(
  'agentNode',
  z.object({ ...promptFields, ...extractionFields, ...toolFields }),
  'A conversation step; needs at least one incoming edge.',
).openapi('AgentNode');

export const EndCallNode = node(
  'endCall',
  z.object({
    ...promptFields,
    ...extractionFields,
    opt_out: z.boolean().optional().openapi({
      description:
        "An opt-out end (default false): a call that reaches it puts the callee's number on the organization's do-not-call list.",
    }),
  }),
  'Ends the call; needs an incoming edge and has no outgoing edge.',
).openapi('EndCallNode');

export const GlobalNode = node(
  'globalNode',
  z.object(promptFields),
  'At most one, with no edges: its prompt is prepended to nodes that set `add_global_prompt`.',
).openapi('GlobalNode');

export const TriggerNode = node(
  'trigger',
  z.object({
    name,
    trigger_path: z
      .uuid()
      .optional()
      .openapi({ description: 'Minted when missing; unique across the service. Calls use `POST /public/agent/{it}`.' }),
    enabled: z.boolean().default(true),
  }),
  'API trigger: at most one, with no incoming edge.',
).openapi('TriggerNode');

export const WebhookNode = node(
  'webhook',
  z.object({
    name,
    enabled: z.boolean().default(true),
    http_method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
    endpoint_url: z.url().max(TEXT_LIMITS.url),
    credential_uuid: reference.optional(),
    custom_headers: z
      .array(z.object({ key: z.string().min(1).max(TEXT_LIMITS.name), value: shortText }))
      .max(GRAPH_LIMITS.customHeaders)
      .default([]),
    payload_template: boundedJsonObject('May use `{{variables}}` in its strings.').default({}),
  }),
  'Called after the call ends; no edges.',
).openapi('WebhookNode');

export const QaNode = node(
  'qa',
  z.object({
    name,
    qa_enabled: z.boolean().default(true),
    qa_system_prompt: z.string().max(TEXT_LIMITS.prompt).optional(),
    qa_min_call_duration: z.number().int().min(0).default(15),
    qa_voicemail_calls: z.boolean().default(false),
    qa_sample_rate: z.number().min(0).max(100).default(100),
    qa_use_workflow_llm: z.boolean().default(true),
    qa_provider: z.enum(['openai', 'azure', 'openrouter', 'anthropic']).optional(),
    qa_model: reference.optional(),
    qa_api_key: shortText.optional(),
    qa_endpoint: z.string().max(TEXT_LIMITS.url).optional(),
    qa_credential_uuid: reference.optional().openapi({
      description: "A credential of the organization whose headers authenticate the node's model requests.",
    }),
    analysis_presets: z
      .array(z.enum(ANALYSIS_PRESETS))
      .max(ANALYSIS_PRESETS.length)
      .default([...ANALYSIS_PRESETS])
      .openapi({ description: 'Typed fields every analysis fills: the summary, success and caller sentiment.' }),
    analysis_fields: z
      .array(analysisField)
      .max(50)
      .default([])
      .openapi({ description: 'Typed values extracted from every analysed call, in `annotations.analysis.fields`.' }),
    success_evaluation: z
      .object({
        rubric: z.enum(['pass_fail', 'scale']).default('pass_fail'),
        criteria: z.string().max(TEXT_LIMITS.text).trim().min(1),
        threshold: z.number().int().min(1).max(10).optional(),
      })
      .optional()
      .openapi({
        description:
          'Judges each call against `criteria`: passed or not, or a 1 to 10 scale (a success from `threshold`, default 6).',
      }),
  }),
  'Post-call quality analysis; no edges.',
).openapi('QaNode');

export const WorkflowNode = z.discriminatedUnion('type', [
  StartCallNode,
  AgentNode,
  EndCallNode,
  GlobalNode,
  TriggerNode,
  WebhookNode,
  QaNode,
]);

export const WorkflowEdge = z
  .looseObject({
    id: reference.min(1),
    source: reference.min(1),
    target: reference.min(1),
    data: z.object({
      label: z
        .string()
        .max(TEXT_LIMITS.name)
        .trim()
        .min(1)
        .openapi({ description: 'Becomes the LLM function name: lower-cased, every non-[a-z0-9] as `_`.' }),
      condition: shortText.trim().min(1).openapi({ description: 'When to take the edge, judged by the LLM.' }),
      transition_speech: shortText.optional(),
      transition_speech_type: z.enum(['text', 'audio']).optional(),
      transition_speech_recording_id: reference.optional(),
    }),
  })
  .openapi('WorkflowEdge');

/** The shape alone, without the graph rules: what a language model is asked to produce. */
export const WorkflowGraph = z.looseObject({
  nodes: z.array(WorkflowNode).min(1).max(GRAPH_LIMITS.nodes),
  edges: z.array(WorkflowEdge).max(GRAPH_LIMITS.edges).default([]),
});

/** A reminder call (start, one conversation step, end), as a client sends it. */
export const EXAMPLE_DEFINITION = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      position: { x: 0, y: 0 },
      data: { name: 'Start', prompt: 'Greet {{first_name}} and say you are calling about tomorrow’s appointment.' },
    },
    {
      id: 'confirm',
      type: 'agentNode',
      position: { x: 0, y: 150 },
      data: { name: 'Confirm', prompt: 'Ask whether the appointment at {{appointment_time}} still suits them.' },
    },
    {
      id: 'end',
      type: 'endCall',
      position: { x: 0, y: 300 },
      data: { name: 'End', prompt: 'Thank them and say goodbye.' },
    },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'confirm', data: { label: 'Answered', condition: 'The person answered' } },
    { id: 'e2', source: 'confirm', target: 'end', data: { label: 'Done', condition: 'They confirmed or declined' } },
  ],
};

export const WorkflowDefinition = WorkflowGraph.superRefine(jsonBounds({ depth: JSON_LIMITS.definitionDepth }))
  .superRefine(checkGraphRules)
  .openapi('WorkflowDefinition', {
    description:
      'Nodes and edges; graph rules: docs/guides/agents.md. Problems answer 422 with `loc` inside it. ' +
      `At most ${JSON_LIMITS.definitionDepth} levels deep as JSON, editor keys included.`,
    example: EXAMPLE_DEFINITION,
  });

export type WorkflowDefinition = z.output<typeof WorkflowDefinition>;
export type WorkflowNode = z.output<typeof WorkflowNode>;
export type WorkflowEdge = z.output<typeof WorkflowEdge>;

// What the schema accepts is exactly the graph the domain reads: a change to one fails to compile until the other follows.
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const definitionIsAgentGraph: SameShape<WorkflowDefinition, AgentGraph> = true;
const nodeIsGraphNode: SameShape<WorkflowNode, GraphNode> = true;
const edgeIsGraphEdge: SameShape<WorkflowEdge, GraphEdge> = true;
void [definitionIsAgentGraph, nodeIsGraphNode, edgeIsGraphEdge];
