import type { DataSource } from 'typeorm';
import type { ConversationResult, ConversationResume, Converse } from '../../agent-runtime/contract';
import { conversationInput } from '../../agent-runtime/conversation-input';
import { openCredentials } from '../../telephony/credentials';
import type { Secrets } from '../../telephony/secrets';
import type { AgentVersionCache } from '../agents/version-cache';
import { listOptOut } from '../compliance/do-not-call';
import { loadConversationTools } from '../tools/conversation-tools';
import { createToolRunnerDeps } from '../tools/tool-runner-deps';
import type { CallRecord, CallRecords } from './call-records';
import type { CallSettings } from './call-settings';
import { conversationSourceOf } from './conversation-source';

export interface RunConversationInput {
  runId: number;
  maxDurationSeconds: number;
  /** Carries on a conversation that stopped for a transfer that did not connect. */
  resume?: ConversationResume;
}

export interface RunConversationDeps {
  dataSource: DataSource;
  records: CallRecords;
  versions: AgentVersionCache;
  secrets: Secrets;
  settings: Pick<CallSettings, 'llm' | 'allowPrivateWebhooks'>;
  /** The conversation engine (`converse` of `agent-runtime`). */
  converse: Converse;
}

/** How long the simulated callee talks when its simulator configuration does not say. */
const SIMULATOR_TALK_SECONDS = 3;

/** How long the simulated callee talks: the simulator's `talk_seconds`, else the whole allowed duration. */
export function talkSecondsOf(
  run: Pick<CallRecord, 'configuration'>,
  maxDurationSeconds: number,
  secrets: Secrets,
): number {
  if (run.configuration?.provider !== 'simulator') return maxDurationSeconds;
  const talk = openCredentials(run.configuration.credentials, secrets).talk_seconds;
  return typeof talk === 'number' ? talk : SIMULATOR_TALK_SECONDS;
}

/**
 * Runs the agent's conversation with the simulated callee of a connected call: the run's agent
 * version, its tools and the language model (the offline policy without one). A callee who asked
 * not to be called again is listed at once, before the call ends; the run's conclusion lists it too.
 */
export function createRunConversation({
  dataSource,
  records,
  versions,
  secrets,
  settings,
  converse,
}: RunConversationDeps) {
  const toolDeps = createToolRunnerDeps({
    dataSource,
    secrets,
    config: { ALLOW_PRIVATE_WEBHOOKS: settings.allowPrivateWebhooks ?? false },
  });

  return async ({ runId, maxDurationSeconds, resume }: RunConversationInput): Promise<ConversationResult> => {
    const run = await records.load(runId);
    const source = conversationSourceOf(run, await versions.get(run.agentVersionId), run.callDispositionCodes);
    const callee = { kind: 'simulated' as const, talkSeconds: talkSecondsOf(run, maxDurationSeconds, secrets) };
    const conversation = await converse(
      { ...conversationInput(source, maxDurationSeconds, callee), resume },
      {
        llm: settings.llm,
        tools: await loadConversationTools(dataSource, toolDeps, run, source.workflowDefinition),
      },
    );
    if (conversation.optOut) await listOptOut(dataSource, runId);
    return conversation;
  };
}
