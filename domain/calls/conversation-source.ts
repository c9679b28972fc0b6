import type { DataSource } from 'typeorm';
import type { ConversationSource } from '../../agent-runtime/conversation-input';
import type { Run } from '../../entities';
import { createCallTargetRepository } from '../../entities/repositories/call-target.repository';
import type { AgentVersionContent } from '../agents/version-cache';

/** What a run's conversation is built from: its version's graph and settings, the agent's disposition codes. */
export const conversationSourceOf = (
  run: Pick<Run, 'id' | 'initialContext'>,
  version: AgentVersionContent,
  callDispositionCodes: ConversationSource['callDispositionCodes'],
): ConversationSource => ({
  runId: run.id,
  initialContext: run.initialContext,
  workflowDefinition: version.workflowDefinition,
  workflowConfigurations: version.workflowConfigurations,
  templateContextVariables: version.templateContextVariables,
  callDispositionCodes,
});

/** The agent version a run pinned and its agent's disposition codes: what its conversation is built from. */
export async function loadConversationSource(dataSource: DataSource, run: Run): Promise<ConversationSource> {
  const targets = createCallTargetRepository(dataSource);
  const version = await targets.getVersion(run.agentVersionId);
  const agent = await targets.dispositionCodesOf(run.agentId);
  return conversationSourceOf(run, version, agent.callDispositionCodes);
}
