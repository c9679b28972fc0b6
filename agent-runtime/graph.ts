import { z } from 'zod';

/**
 * Navigation over an agent's `workflow_definition` (see `api/schemas/workflow-definition.ts`). The
 * definition was validated when it was saved; this reader is lenient (unknown keys and node types
 * are ignored, the schema's defaults are applied) and keeps only what a conversation needs.
 */

const ExtractionVariable = z.object({
  name: z.string().trim().min(1),
  type: z.enum(['string', 'number', 'boolean']).catch('string'),
  prompt: z.string().optional(),
});

const NodeData = z.looseObject({
  name: z.string().default(''),
  prompt: z.string().default(''),
  add_global_prompt: z.boolean().default(true),
  allow_interrupt: z.boolean().default(false),
  delayed_start: z.boolean().default(false),
  delayed_start_duration: z.number().min(0).max(10).default(2),
  extraction_enabled: z.boolean().default(false),
  extraction_prompt: z.string().optional(),
  extraction_variables: z.array(ExtractionVariable).default([]),
  greeting: z.string().optional(),
  greeting_type: z.enum(['text', 'audio']).default('text'),
  /** An end node where the callee asked not to be called again. */
  opt_out: z.boolean().default(false),
  tool_uuids: z.array(z.string()).default([]),
  document_uuids: z.array(z.string()).default([]),
});

const Node = z.looseObject({ id: z.string().min(1), type: z.string(), data: NodeData.default(NodeData.parse({})) });

const Edge = z.looseObject({
  id: z.string().min(1),
  source: z.string().min(1),
  target: z.string().min(1),
  data: z.looseObject({
    label: z.string().trim().min(1),
    condition: z.string().default(''),
    transition_speech: z.string().optional(),
    transition_speech_type: z.enum(['text', 'audio']).optional(),
  }),
});

const Definition = z.looseObject({ nodes: z.array(Node).min(1), edges: z.array(Edge).default([]) });

export type ConversationNode = z.output<typeof Node>;
export type ConversationEdge = z.output<typeof Edge>;
export type ExtractionVariable = z.output<typeof ExtractionVariable>;

/** Node types the conversation visits; `webhook`, `qa` and `trigger` nodes play no part in it. */
const CONVERSATION_TYPES = new Set(['startCall', 'agentNode', 'endCall']);

/** The LLM function name of an edge: its label lower-cased, every non-`[a-z0-9]` as `_` (at most 64). */
export const functionName = (label: string): string =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '_')
    .slice(0, 64);

export class ConversationGraph {
  readonly start: ConversationNode;
  readonly global: ConversationNode | undefined;
  private readonly nodes = new Map<string, ConversationNode>();
  private readonly outgoing = new Map<string, ConversationEdge[]>();

  constructor(definition: Record<string, unknown>) {
    const parsed = Definition.safeParse(definition);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      throw new Error(
        `Invalid workflow definition: ${problem?.path.join('.') || '(root)'}: ${problem?.message ?? 'invalid'}`,
      );
    }
    for (const node of parsed.data.nodes) this.nodes.set(node.id, node);
    const start = parsed.data.nodes.find((node) => node.type === 'startCall');
    if (!start) throw new Error('Invalid workflow definition: no startCall node');
    this.start = start;
    this.global = parsed.data.nodes.find((node) => node.type === 'globalNode');
    for (const edge of parsed.data.edges) {
      const target = this.nodes.get(edge.target);
      if (!this.nodes.has(edge.source) || !target) {
        throw new Error(`Invalid workflow definition: edge ${edge.id} joins a missing node`);
      }
      if (!CONVERSATION_TYPES.has(target.type)) continue;
      this.outgoing.set(edge.source, [...(this.outgoing.get(edge.source) ?? []), edge]);
    }
  }

  /** A node by id (a conversation carried on from where it stopped); the start node when it is gone. */
  node(id: string | undefined): ConversationNode {
    return (id === undefined ? undefined : this.nodes.get(id)) ?? this.start;
  }

  /** The edges leaving a node, in definition order. */
  edgesFrom(node: ConversationNode): ConversationEdge[] {
    return node.type === 'endCall' ? [] : (this.outgoing.get(node.id) ?? []);
  }

  target(edge: ConversationEdge): ConversationNode {
    const node = this.nodes.get(edge.target);
    if (!node) throw new Error(`Invalid workflow definition: edge ${edge.id} joins a missing node`);
    return node;
  }

  /** An end node, or a node with no way out: the agent speaks once more and the call ends. */
  isTerminal(node: ConversationNode): boolean {
    return this.edgesFrom(node).length === 0;
  }

  /** The global prompt applies to nodes that set `add_global_prompt` (the default). */
  globalPromptFor(node: ConversationNode): string | undefined {
    return node.data.add_global_prompt && this.global ? this.global.data.prompt : undefined;
  }
}
