import type { ToolStatements } from '../../entities/repositories/tool.repository';
import type { AgentGraph } from '../agents/agent-graph';
import { edgeFunctionName } from '../agents/graph-rules';
import { ValidationError, type ValidationIssue } from '../errors';
import { toolFunctionName } from './function-names';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every `tool_uuids` entry of the graph must name an active tool of the organization, and a node's
 * functions (its edges' and its tools') must have distinct names, or the model could not tell them
 * apart. Each problem points at the node's entry in the request body.
 */
export async function toolReferenceProblems(
  tools: Pick<ToolStatements, 'findAmong'>,
  organizationId: number,
  graph: Pick<AgentGraph, 'nodes' | 'edges'>,
): Promise<ValidationIssue[]> {
  const referenced = [
    ...new Set(graph.nodes.flatMap((node) => ('tool_uuids' in node.data ? (node.data.tool_uuids ?? []) : []))),
  ];
  const valid = referenced.filter((uuid) => UUID.test(uuid));
  const found = new Map(
    (valid.length > 0 ? await tools.findAmong(organizationId, valid) : []).map((row) => [row.id, row]),
  );
  const issues: ValidationIssue[] = [];
  graph.nodes.forEach((node, index) => {
    const uuids = 'tool_uuids' in node.data ? (node.data.tool_uuids ?? []) : [];
    const at = ['body', 'workflow_definition', 'nodes', index, 'data', 'tool_uuids'];
    const names = new Map<string, string>(
      graph.edges
        .filter((edge) => edge.source === node.id)
        .map((edge) => [edgeFunctionName(edge.data.label), `the edge "${edge.data.label}"`]),
    );
    uuids.forEach((uuid, position) => {
      const tool = found.get(uuid);
      if (!tool) {
        issues.push({
          loc: [...at, position],
          msg: `Node ${node.id}: tool ${uuid} not found in this organization`,
          type: 'value_error',
        });
        return;
      }
      if (tool.status === 'archived') {
        issues.push({
          loc: [...at, position],
          msg: `Node ${node.id}: tool ${uuid} (${tool.name}) is archived`,
          type: 'value_error',
        });
        return;
      }
      const name = toolFunctionName(tool.name);
      const clash = names.get(name);
      if (clash) {
        issues.push({
          loc: [...at, position],
          msg: `Node ${node.id}: the tool "${tool.name}" has the function name ${name}, as ${clash} does`,
          type: 'value_error',
        });
      }
      names.set(name, `the tool "${tool.name}"`);
    });
  });
  return issues;
}

export async function assertToolReferences(
  tools: Pick<ToolStatements, 'findAmong'>,
  organizationId: number,
  graph: Pick<AgentGraph, 'nodes' | 'edges'>,
): Promise<void> {
  const issues = await toolReferenceProblems(tools, organizationId, graph);
  if (issues.length > 0) throw new ValidationError(issues);
}
