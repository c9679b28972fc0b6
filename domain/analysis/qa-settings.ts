import type { QaNode } from '../agents/agent-graph';
import type { AnalysisField, AnalysisPreset, QaSettings, VisitedNode } from './types';

/** The presets as typed fields: the summary, whether the call achieved its goal, the caller's mood. */
export const PRESET_FIELDS: Record<AnalysisPreset, AnalysisField> = {
  call_summary: {
    name: 'call_summary',
    type: 'string',
    description: 'A summary of the call in two or three sentences.',
  },
  call_successful: {
    name: 'call_successful',
    type: 'boolean',
    description: 'Whether the agent achieved what the call was for.',
  },
  user_sentiment: {
    name: 'user_sentiment',
    type: 'enum',
    description: "The caller's sentiment over the call.",
    choices: ['positive', 'neutral', 'negative'],
  },
};

const isQaNode = (node: { type?: unknown }): node is QaNode => node.type === 'qa';

/** The QA nodes of an agent's graph, enabled or not, with their presets expanded into fields. */
export function qaSettingsOf(definition: Record<string, unknown>): QaSettings[] {
  const nodes = Array.isArray(definition.nodes) ? (definition.nodes as { type?: unknown }[]) : [];
  return nodes.filter(isQaNode).map((node) => {
    // Versions saved before typed fields existed have neither list.
    const data = node.data as Omit<QaNode['data'], 'analysis_presets' | 'analysis_fields'> &
      Partial<Pick<QaNode['data'], 'analysis_presets' | 'analysis_fields'>>;
    const presets = data.analysis_presets ?? [];
    const custom = (data.analysis_fields ?? []).filter((field) => !presets.includes(field.name as AnalysisPreset));
    return {
      nodeId: node.id,
      name: data.name,
      enabled: data.qa_enabled,
      ...(data.qa_system_prompt ? { systemPrompt: data.qa_system_prompt } : {}),
      minCallDurationSeconds: data.qa_min_call_duration,
      voicemailCalls: data.qa_voicemail_calls,
      sampleRate: data.qa_sample_rate,
      useWorkflowLlm: data.qa_use_workflow_llm,
      ...(data.qa_provider ? { provider: data.qa_provider } : {}),
      ...(data.qa_model ? { model: data.qa_model } : {}),
      ...(data.qa_endpoint ? { endpoint: data.qa_endpoint } : {}),
      ...(data.qa_credential_uuid ? { credentialUuid: data.qa_credential_uuid } : {}),
      ...(data.qa_api_key ? { sealedApiKey: data.qa_api_key } : {}),
      fields: [...presets.map((preset) => PRESET_FIELDS[preset]), ...custom],
      ...(data.success_evaluation ? { successEvaluation: data.success_evaluation } : {}),
    };
  });
}

/** The enabled QA nodes: a run of an agent with none is not analysed. */
export const enabledQaSettingsOf = (definition: Record<string, unknown>): QaSettings[] =>
  qaSettingsOf(definition).filter((settings) => settings.enabled);

/** The conversation nodes a call visited (once each, in order), with their names and prompts. */
export function visitedNodesOf(definition: Record<string, unknown>, nodePath: string[]): VisitedNode[] {
  const nodes = Array.isArray(definition.nodes)
    ? (definition.nodes as { id: string; data?: { name?: unknown; prompt?: unknown } }[])
    : [];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return [...new Set(nodePath)].flatMap((id) => {
    const node = byId.get(id);
    if (!node) return [];
    const { name, prompt } = node.data ?? {};
    return [{ id, name: typeof name === 'string' ? name : id, prompt: typeof prompt === 'string' ? prompt : '' }];
  });
}
