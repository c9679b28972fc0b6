import type { DataSource } from 'typeorm';
import type { ConversationSource } from '../../agent-runtime/conversation-input';
import { Agent, AgentVersion, type Run } from '../../entities';
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
  const version = await dataSource.getRepository(AgentVersion).findOneByOrFail({ id: run.agentVersionId });
  const agent = await dataSource
    .getRepository(Agent)
    .findOneOrFail({ where: { id: run.agentId }, select: { id: true, callDispositionCodes: true } });
  return conversationSourceOf(run, version, agent.callDispositionCodes);
}
