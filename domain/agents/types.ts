import type { AgentGraph } from './agent-graph';

/**
 * Agents and their versions as the domain answers them: the API's response schemas
 * (api/schemas/agents.ts) document these shapes, and the API's build checks that they agree.
 */

export type AgentStatus = 'active' | 'archived';
export type AgentVersionStatus = 'published' | 'archived';

export interface AgentListView {
  id: number;
  name: string;
  status: AgentStatus;
  created_at: string;
  total_runs: number;
  workflow_uuid: string;
  current_definition_id: number;
  version_number: number;
}

export interface AgentView extends AgentListView {
  workflow_definition: AgentGraph;
  template_context_variables: Record<string, unknown>;
  call_disposition_codes: { disposition_codes: unknown[] };
  workflow_configurations: Record<string, unknown>;
  version_status: AgentVersionStatus;
}

export interface AgentVersionView {
  /** The definition id runs record as `definition_id`. */
  id: number;
  version_number: number;
  /** `published` for the current version only. */
  status: AgentVersionStatus;
  created_at: string;
  workflow_definition: AgentGraph;
  workflow_configurations: Record<string, unknown>;
  template_context_variables: Record<string, unknown>;
}
