import type { z } from 'zod';
import { GRAPH_LIMITS } from '../limits';
import type { GraphEdge, GraphNode } from './agent-graph';

export interface GraphProblem {
  /** Inside `workflow_definition`, e.g. `['edges', 3, 'target']`. */
  path: (string | number)[];
  message: string;
}

interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The LLM function an edge becomes: its label lower-cased, every other character `_`. */
export const edgeFunctionName = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]/g, '_');

/** Node types that stand alone: any edge touching them is an error. */
const NO_EDGES = new Set(['globalNode', 'webhook', 'qa']);
/** Node types of which a graph has at most one. */
const AT_MOST_ONE = new Set(['globalNode', 'trigger']);
/** Node types no edge may enter. */
const NO_INCOMING = new Set(['startCall', 'trigger']);
/** Node types that must be reachable through at least one incoming edge. */
const NEEDS_INCOMING = new Set(['agentNode', 'endCall']);

/** The graph rules of a definition whose shape is already valid; an empty list means valid. */
export function graphProblems({ nodes, edges }: Graph): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const typeById = new Map<string, string>();
  const seenTypes = new Set<string>();

  nodes.forEach((node, index) => {
    if (typeById.has(node.id))
      problems.push({ path: ['nodes', index, 'id'], message: `Duplicate node id '${node.id}'` });
    typeById.set(node.id, node.type);
    if (AT_MOST_ONE.has(node.type) && seenTypes.has(node.type)) {
      problems.push({ path: ['nodes', index, 'type'], message: `At most one ${node.type} node is allowed` });
    }
    if (node.type === 'startCall' && seenTypes.has('startCall')) {
      problems.push({ path: ['nodes', index, 'type'], message: 'Exactly one startCall node is allowed' });
    }
    seenTypes.add(node.type);
  });
  if (!seenTypes.has('startCall')) problems.push({ path: ['nodes'], message: 'A startCall node is required' });
  // Each webhook node is one outbound request after every call: their number bounds that fan-out.
  if (nodes.filter((node) => node.type === 'webhook').length > GRAPH_LIMITS.webhookNodes) {
    problems.push({ path: ['nodes'], message: `At most ${GRAPH_LIMITS.webhookNodes} webhook nodes are allowed` });
  }

  const edgeIds = new Set<string>();
  const functionNamesBySource = new Map<string, Set<string>>();
  const withIncoming = new Set<string>();
  edges.forEach((edge, index) => {
    if (edgeIds.has(edge.id))
      problems.push({ path: ['edges', index, 'id'], message: `Duplicate edge id '${edge.id}'` });
    edgeIds.add(edge.id);
    const sourceType = typeById.get(edge.source);
    const targetType = typeById.get(edge.target);
    if (sourceType === undefined) {
      problems.push({ path: ['edges', index, 'source'], message: `Edge source '${edge.source}' is not a node` });
    } else if (sourceType === 'endCall' || NO_EDGES.has(sourceType)) {
      problems.push({ path: ['edges', index, 'source'], message: `A ${sourceType} node cannot have outgoing edges` });
    }
    if (targetType === undefined) {
      problems.push({ path: ['edges', index, 'target'], message: `Edge target '${edge.target}' is not a node` });
    } else if (NO_INCOMING.has(targetType) || NO_EDGES.has(targetType)) {
      problems.push({ path: ['edges', index, 'target'], message: `A ${targetType} node cannot have incoming edges` });
    }
    withIncoming.add(edge.target);

    const names = functionNamesBySource.get(edge.source) ?? new Set<string>();
    const functionName = edgeFunctionName(edge.data.label);
    if (names.has(functionName)) {
      problems.push({
        path: ['edges', index, 'data', 'label'],
        message: `Another edge from '${edge.source}' already becomes the function '${functionName}'`,
      });
    }
    functionNamesBySource.set(edge.source, names.add(functionName));
  });

  nodes.forEach((node, index) => {
    if (NEEDS_INCOMING.has(node.type) && !withIncoming.has(node.id)) {
      problems.push({ path: ['nodes', index], message: `The ${node.type} node '${node.id}' has no incoming edge` });
    }
    const data = node.data as { pre_call_fetch_mode?: string; pre_call_fetch_url?: string };
    if (
      node.type === 'startCall' &&
      (data.pre_call_fetch_mode ?? 'disabled') !== 'disabled' &&
      !data.pre_call_fetch_url
    ) {
      problems.push({
        path: ['nodes', index, 'data', 'pre_call_fetch_url'],
        message: `pre_call_fetch_mode '${data.pre_call_fetch_mode}' needs a pre_call_fetch_url`,
      });
    }
  });
  return problems;
}

/** `graphProblems` as zod issues, so graph errors answer 422 like any other validation error. */
export function checkGraphRules(graph: Graph, ctx: z.RefinementCtx): void {
  for (const { path, message } of graphProblems(graph)) ctx.addIssue({ code: 'custom', path, message });
}
