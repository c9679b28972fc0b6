import { WorkflowDefinition } from '../../api/schemas/workflow-definition';
import { edgeFunctionName } from '../../domain/agents/graph-rules';
import { sampleDefinition } from '../helpers/agents';

type Definition = ReturnType<typeof sampleDefinition>;
type Node = Definition['nodes'][number] | { id: string; type: string; data: Record<string, unknown> };
type Edge = Definition['edges'][number];

const edge = (id: string, source: string, target: string, label = id): Edge => ({
  id,
  source,
  target,
  data: { label, condition: 'when it fits' },
});

const withNodes = (...nodes: Node[]) => {
  const definition = sampleDefinition();
  return { ...definition, nodes: [...definition.nodes, ...nodes] };
};
const withEdges = (...edges: Edge[]) => {
  const definition = sampleDefinition();
  return { ...definition, edges: [...definition.edges, ...edges] };
};

/** The problems of a definition as `path: message` strings. */
const problems = (definition: unknown) => {
  const result = WorkflowDefinition.safeParse(definition);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the definition schema', () => {
  it('accepts the start → agent → end sample and fills in node defaults', () => {
    const parsed = WorkflowDefinition.parse(sampleDefinition());
    expect(parsed.nodes[0]?.data).toMatchObject({ allow_interrupt: false, add_global_prompt: true });
  });

  it('drops unknown keys inside data but keeps editor keys elsewhere', () => {
    const definition = sampleDefinition();
    const parsed = WorkflowDefinition.parse({
      ...definition,
      viewport: { x: 1, y: 2, zoom: 1 },
      nodes: definition.nodes.map((node) => ({ ...node, selected: true, data: { ...node.data, junk: 1 } })),
    });
    expect(parsed).toMatchObject({ viewport: { x: 1, y: 2, zoom: 1 } });
    expect(parsed.nodes[0]).toMatchObject({ selected: true });
    expect(parsed.nodes[0]?.data).not.toHaveProperty('junk');
  });

  it('points at a missing prompt', () => {
    const definition = sampleDefinition();
    const nodes = definition.nodes.map((node, index) => (index === 2 ? { ...node, data: { name: 'End' } } : node));
    expect(problems({ ...definition, nodes })).toEqual([
      'nodes.2.data.prompt: Invalid input: expected string, received undefined',
    ]);
  });

  it('points at an unknown node type', () => {
    expect(problems(withNodes({ id: 'x', type: 'teleport', data: { name: 'X' } }))).toEqual([
      expect.stringMatching(/^nodes\.3\.type: /),
    ]);
  });

  it('checks each node type its own data', () => {
    expect(problems(withNodes({ id: 'w', type: 'webhook', data: { name: 'W', endpoint_url: 'not a url' } }))).toEqual([
      expect.stringMatching(/^nodes\.3\.data\.endpoint_url: /),
    ]);
    expect(problems(withNodes({ id: 't', type: 'trigger', data: { name: 'T', trigger_path: 'nope' } }))).toEqual([
      expect.stringMatching(/^nodes\.3\.data\.trigger_path: /),
    ]);
    expect(problems(withNodes({ id: 'q', type: 'qa', data: { name: 'Q', qa_sample_rate: 101 } }))).toEqual([
      expect.stringMatching(/^nodes\.3\.data\.qa_sample_rate: /),
    ]);
  });
});

describe('the graph rules', () => {
  it('require a start node', () => {
    const definition = sampleDefinition();
    expect(problems({ ...definition, nodes: definition.nodes.slice(1), edges: definition.edges.slice(1) })).toEqual([
      'nodes: A startCall node is required',
      "nodes.0: The agentNode node 'talk' has no incoming edge",
    ]);
  });

  it('allow only one start node', () => {
    expect(problems(withNodes({ id: 'start2', type: 'startCall', data: { name: 'Again', prompt: 'Hi' } }))).toEqual([
      'nodes.3.type: Exactly one startCall node is allowed',
    ]);
  });

  it('forbid edges into the start node', () => {
    expect(problems(withEdges(edge('back', 'talk', 'start')))).toEqual([
      'edges.2.target: A startCall node cannot have incoming edges',
    ]);
  });

  it('forbid edges out of an end node', () => {
    expect(problems(withEdges(edge('after', 'end', 'talk')))).toEqual([
      'edges.2.source: A endCall node cannot have outgoing edges',
    ]);
  });

  it('require edges to reference existing nodes', () => {
    expect(problems(withEdges(edge('dangling', 'ghost', 'nowhere')))).toEqual([
      "edges.2.source: Edge source 'ghost' is not a node",
      "edges.2.target: Edge target 'nowhere' is not a node",
    ]);
  });

  it('require distinct function names for the edges leaving a node', () => {
    // "Done!" and "done?" both become the function `done_`.
    const definition = withNodes({ id: 'end2', type: 'endCall', data: { name: 'End 2', prompt: 'Bye' } });
    const ok = { ...definition, edges: [...definition.edges, edge('e3', 'talk', 'end2', 'Done later')] };
    expect(problems(ok)).toEqual([]);
    const clash = { ...definition, edges: [...definition.edges, edge('e3', 'talk', 'end2', 'done')] };
    expect(problems(clash)).toEqual([
      "edges.2.data.label: Another edge from 'talk' already becomes the function 'done'",
    ]);
    expect(edgeFunctionName('Done, Later!')).toBe('done__later_');
  });

  it('allow at most one global node and one trigger', () => {
    const global = (id: string) => ({ id, type: 'globalNode', data: { name: id, prompt: 'Be kind' } });
    const trigger = (id: string) => ({ id, type: 'trigger', data: { name: id } });
    expect(problems(withNodes(global('g1'), trigger('t1')))).toEqual([]);
    expect(problems(withNodes(global('g1'), global('g2')))).toEqual([
      'nodes.4.type: At most one globalNode node is allowed',
    ]);
    expect(problems(withNodes(trigger('t1'), trigger('t2')))).toEqual([
      'nodes.4.type: At most one trigger node is allowed',
    ]);
  });

  it.each(['globalNode', 'webhook', 'qa'])('allow no edges on a %s node', (type) => {
    const data: Record<string, Record<string, unknown>> = {
      globalNode: { name: 'G', prompt: 'Be kind' },
      webhook: { name: 'W', endpoint_url: 'https://example.com/hook' },
      qa: { name: 'Q' },
    };
    const definition = withNodes({ id: 'x', type, data: data[type] ?? {} });
    expect(problems(definition)).toEqual([]);
    expect(problems({ ...definition, edges: [...definition.edges, edge('in', 'talk', 'x')] })).toEqual([
      `edges.2.target: A ${type} node cannot have incoming edges`,
    ]);
    expect(problems({ ...definition, edges: [...definition.edges, edge('out', 'x', 'end')] })).toEqual([
      `edges.2.source: A ${type} node cannot have outgoing edges`,
    ]);
  });

  it('require an incoming edge on agent and end nodes', () => {
    const definition = sampleDefinition();
    expect(problems({ ...definition, edges: definition.edges.slice(0, 1) })).toEqual([
      "nodes.2: The endCall node 'end' has no incoming edge",
    ]);
  });

  it('reject duplicate node ids', () => {
    expect(problems(withNodes({ id: 'talk', type: 'agentNode', data: { name: 'Twin', prompt: 'Hi' } }))).toEqual([
      "nodes.3.id: Duplicate node id 'talk'",
    ]);
  });
});
