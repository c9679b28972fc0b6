import type { DataSource } from 'typeorm';
import { createAgentRepository, type AgentRepository } from '../../entities/repositories/agent.repository';

/** What a run executes of its agent version: fixed once the version exists (only its status changes). */
export interface AgentVersionContent {
  workflowDefinition: Record<string, unknown>;
  workflowConfigurations: Record<string, unknown>;
  templateContextVariables: Record<string, unknown>;
}

const DEFAULT_MAX_ENTRIES = 512;

/**
 * Agent version contents by id, read once per process: every call of a version reads the same
 * graph, and versions are never edited in place (an update writes a new one). Entries are frozen
 * so that no caller can change what the next call reads. Least recently used entries go first.
 */
export class AgentVersionCache {
  private readonly entries = new Map<number, Promise<AgentVersionContent>>();
  private readonly agents: AgentRepository;

  constructor(
    dataSource: DataSource,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {
    this.agents = createAgentRepository(dataSource);
  }

  get(versionId: number): Promise<AgentVersionContent> {
    const cached = this.entries.get(versionId);
    if (cached) {
      // Map order is insertion order: re-inserting marks the entry as the most recently used.
      this.entries.delete(versionId);
      this.entries.set(versionId, cached);
      return cached;
    }
    const loading = this.load(versionId);
    this.entries.set(versionId, loading);
    // A failed read is not remembered: the next call asks PostgreSQL again.
    loading.catch(() => this.entries.delete(versionId));
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as number);
    return loading;
  }

  private async load(versionId: number): Promise<AgentVersionContent> {
    const row = await this.agents.versionContent(versionId);
    if (!row) throw new Error(`Agent version ${versionId} does not exist`);
    return deepFreeze({
      workflowDefinition: row.workflow_definition,
      workflowConfigurations: row.workflow_configurations,
      templateContextVariables: row.template_context_variables,
    });
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
