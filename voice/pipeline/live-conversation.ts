import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { converse } from '../../agent-runtime';
import type {
  ConversationResult,
  ConversationResume,
  LlmSettings,
  TranscriptLine,
  TurnLatency,
} from '../../agent-runtime/contract';
import { conversationInput } from '../../agent-runtime/conversation-input';
import { ConversationGraph } from '../../agent-runtime/graph';
import { loadConversationSource } from '../../domain/calls/conversation-source';
import { fetchesFor, PRE_CALL_FETCH_BUDGET_MS, preCallFetchSettings } from '../../domain/calls/pre-call-fetch';
import { listOptOut } from '../../domain/compliance/do-not-call';
import { loadConversationTools } from '../../domain/tools/conversation-tools';
import { createToolRunnerDeps } from '../../domain/tools/tool-runner-deps';
import type { Run } from '../../entities';
import { createCallTargetRepository } from '../../entities/repositories/call-target.repository';
import { createRunRepository } from '../../entities/repositories/run.repository';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { Secrets } from '../../telephony/secrets';
import {
  conversationEndedSignal,
  conversationStartedSignal,
  liveResumeQuery,
  type LiveResume,
} from '../../workflows/definitions';
import type { MediaSession } from '../media-session';
import { loadOrganizationSpeechKeys } from '../speech/organization-keys';
import { selectSpeech } from '../speech/select';
import { LiveParty, type VoiceEvent } from './live-party';
import { turnSettingsOf } from './turn-settings';
import type { VoicemailRequests } from './voicemail-requests';

export interface LiveConversationDeps {
  dataSource: DataSource;
  secrets: Secrets;
  temporal: Client;
  /** Speech provider keys and defaults (`selectSpeech`). */
  config: Config;
  /** Unset: the offline policy. */
  llm?: LlmSettings;
  logger: Logger;
  /** Each answered turn's latency (the metrics histogram). */
  onLatency?(latency: TurnLatency): void;
  /** What happens on each call, as it happens (tests). */
  onEvent?(runId: number, event: VoiceEvent): void;
  /** Where the call workflow's request to leave a voicemail arrives (unset: never asked). */
  voicemail?: VoicemailRequests;
}

/** How long the API keeps telling a call workflow its conversation when Temporal is unreachable. */
const SIGNAL_ATTEMPTS = 12;
const SIGNAL_RETRY_MS = 5_000;
/** How often the API asks a call workflow whether a conversation stopped for a transfer carries on. */
const RESUME_POLL_MS = 1_000;
/** How long it asks at most: the longest ring timeout, with room for the workflow to settle. */
const RESUME_WAIT_MS = 180_000;
/** Speech-to-text language until agents can choose one. */
const LANGUAGE = 'en-US';

/**
 * Runs the agent's conversation on a call's media stream, in the process that holds the stream:
 * the run's agent version, its tools and speech providers are loaded, the engine talks with the
 * caller through a `LiveParty` (running the node's tools as the simulated path does: an HTTP
 * tool's `customMessage` is spoken before its request, a slow result gets a short line, and the
 * caller may interrupt either), and the result (transcript, gathered context, disposition, usage, turn
 * latencies) goes to the run's call workflow as `conversationEnded`, which hangs up, waits for the
 * provider's final status and writes the run. Never throws: a conversation that cannot start or
 * breaks down (a speech provider refusing its key, say) is logged and reported as ended by
 * `error`, so that the workflow hangs up instead of leaving the caller in silence. A conversation
 * that stopped for a transfer leaves the stream open: while it is, the workflow is asked whether the
 * transfer connected; when it did not, the conversation carries on, the model told why.
 */
export async function startLiveConversation(session: MediaSession, deps: LiveConversationDeps): Promise<void> {
  const log = deps.logger.child({ component: 'voice', runId: session.runId });
  let run: Run;
  try {
    run = await createRunRepository(deps.dataSource).getById(session.runId);
  } catch (error) {
    log.error({ err: error }, 'live conversation could not load its run');
    return;
  }
  const workflowId = run.temporalWorkflowId;
  if (run.isCompleted || !workflowId) {
    log.warn('media stream for a run that is over or has no call workflow: nothing will be said');
    return;
  }
  let resume: ConversationResume | undefined;
  if (run.recordingUrl !== null) {
    // A stream of this run was recorded before: the provider streams the caller back after a
    // transfer that did not connect, and the conversation carries on once the workflow says so.
    const back = await transferOutcome(deps.temporal, workflowId, session, (state) => state.awaiting, log);
    if (!back) {
      log.warn('a stream came back with no conversation to carry on: nothing will be said');
      return;
    }
    resume = back;
  }
  for (;;) {
    let result: ConversationResult;
    try {
      result = await runLiveConversation(session, run, workflowId, deps, log, resume);
    } catch (error) {
      log.error({ err: error }, 'live conversation failed; the call is hung up');
      await tellWorkflow(deps.temporal, workflowId, failedConversation(resume), log).catch((signalError: unknown) =>
        log.error({ err: signalError }, 'the call workflow could not be told the conversation failed'),
      );
      return;
    }
    if (result.endedBy !== 'transfer' || !result.transfer) return;
    const { sequence } = result.transfer;
    const next = await transferOutcome(
      deps.temporal,
      workflowId,
      session,
      ({ resume: offered }) => offered?.previous.transfer?.sequence === sequence,
      log,
    );
    if (!next) return;
    log.info({ attempts: next.attempts }, 'transfer did not connect; the conversation carries on');
    resume = next;
  }
}

/**
 * What a conversation that broke down reports: nothing said, dograh's `pipeline_error` disposition;
 * one carried on after a transfer keeps what was said before it.
 */
function failedConversation(resume?: ConversationResume): ConversationResult {
  if (resume) {
    const previous: ConversationResult = { ...resume.previous, endedBy: 'error', disposition: 'pipeline_error' };
    delete previous.transfer;
    return previous;
  }
  return {
    transcript: [],
    gatheredContext: {},
    disposition: 'pipeline_error',
    endedBy: 'error',
    nodePath: [],
    usage: { model: 'none', promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}

/**
 * After a conversation stopped for a transfer: asks the call workflow, every second while the
 * stream is open, how the transfer went. The conversation to carry on once the workflow offers one
 * that `ours` accepts (the transfer did not connect); null when the person took the caller, the call
 * or its stream ended, or the workflow cannot be asked.
 */
async function transferOutcome(
  temporal: Client,
  workflowId: string,
  session: MediaSession,
  ours: (state: LiveResume) => boolean,
  log: Logger,
): Promise<ConversationResume | null> {
  const handle = temporal.workflow.getHandle(workflowId);
  const deadline = Date.now() + RESUME_WAIT_MS;
  while (!session.isEnded && Date.now() < deadline) {
    try {
      const state = await handle.query(liveResumeQuery);
      if (state.resume && ours(state)) return state.resume;
      if (state.over) return null;
    } catch (error) {
      if (error instanceof Error && error.name === 'WorkflowNotFoundError') return null;
      log.warn({ err: error }, 'transfer outcome query failed; asking again');
    }
    await delay(RESUME_POLL_MS);
  }
  return null;
}

async function runLiveConversation(
  session: MediaSession,
  run: Run,
  workflowId: string,
  deps: LiveConversationDeps,
  log: Logger,
  resume: ConversationResume | undefined,
): Promise<ConversationResult> {
  const started = await withPreCallFetch(deps.dataSource, run, log);
  const source = await loadConversationSource(deps.dataSource, started);
  const tools = await loadConversationTools(
    deps.dataSource,
    createToolRunnerDeps({ dataSource: deps.dataSource, secrets: deps.secrets, config: deps.config }),
    started,
    source.workflowDefinition,
  );
  const settings = turnSettingsOf(source.workflowConfigurations);
  const speech = selectSpeech(
    source.workflowConfigurations,
    deps.config,
    await loadOrganizationSpeechKeys(deps.dataSource, deps.secrets, run.organizationId),
  );
  const party = await LiveParty.open({
    session,
    tts: speech.tts,
    ttsOptions: { sampleRate: 8000, voice: speech.voice, language: LANGUAGE },
    openStt: (handlers) =>
      speech.stt.open({ sampleRate: 8000, language: LANGUAGE, keyterms: speech.keyterms }, handlers),
    settings,
    log,
    onLatency: (latency) => deps.onLatency?.(latency),
    onEvent: (event) => {
      deps.onEvent?.(session.runId, event);
      session.announce(event);
    },
  });
  log.info({ stt: speech.stt.provider, tts: speech.tts.provider }, 'live conversation started');
  // Tells the workflow a conversation is coming, so that it waits for it after the call ends; the
  // greeting does not wait for it.
  void deps.temporal.workflow
    .getHandle(workflowId)
    .signal(conversationStartedSignal)
    .catch((error: unknown) => log.warn({ err: error }, 'conversation start signal failed'));
  // A machine answered: the workflow asks for the agent's voicemail message, which ends the conversation.
  let voicemail: Promise<TranscriptLine | null> | undefined;
  const stopTakingVoicemail = deps.voicemail?.register(session.runId, (text) => {
    voicemail ??= party.leaveMessage(text);
  });
  let result: ConversationResult;
  try {
    const start = new ConversationGraph(source.workflowDefinition).start;
    if (start.data.delayed_start && !resume) await delay(start.data.delayed_start_duration * 1000);
    const input = conversationInput(source, settings.maxCallSeconds, { kind: 'live' });
    result = await converse(resume ? { ...input, resume } : input, { llm: deps.llm, party, tools });
    if (voicemail) result = withVoicemail(result, await voicemail, session.isEnded);
  } finally {
    stopTakingVoicemail?.();
    await party.close();
  }
  result.turnLatency = party.latencies;
  session.announce({ type: 'ended', at: Date.now(), reason: result.endedBy });
  log.info({ endedBy: result.endedBy, turns: party.latencies.length }, 'live conversation ended');
  // On the list before the workflow hangs up; the run's conclusion lists it again if this failed.
  if (result.optOut) {
    await listOptOut(deps.dataSource, session.runId).catch((error: unknown) =>
      log.error({ err: error }, 'opt-out could not be listed; the run conclusion will'),
    );
  }
  await tellWorkflow(deps.temporal, workflowId, result, log);
  return result;
}

/**
 * The conversation up to the machine's verdict, then the message: ended by `voicemail` once it was
 * played to its end; otherwise by the hang-up that cut it, or by `error` (text-to-speech failed).
 */
function withVoicemail(
  result: ConversationResult,
  message: TranscriptLine | null,
  hungUp: boolean,
): ConversationResult {
  if (!message) return { ...result, endedBy: hungUp ? 'callee_hangup' : 'error' };
  return { ...result, endedBy: 'voicemail', transcript: [...result.transcript, message] };
}

async function tellWorkflow(temporal: Client, workflowId: string, result: ConversationResult, log: Logger) {
  for (let attempt = 1; ; attempt++) {
    try {
      await temporal.workflow.getHandle(workflowId).signal(conversationEndedSignal, result);
      return;
    } catch (error) {
      // A workflow that is already closed will never take it; anything else may be Temporal being away.
      if (error instanceof Error && error.name === 'WorkflowNotFoundError') {
        log.warn('the call workflow had already finished; its conversation is not recorded');
        return;
      }
      if (attempt >= SIGNAL_ATTEMPTS) throw error;
      log.warn({ err: error, attempt }, 'conversation signal failed; trying again');
      await delay(SIGNAL_RETRY_MS);
    }
  }
}

/** How long an inbound call's conversation waits for its workflow's pre-call fetch, beyond the fetch's own bound. */
const PRE_CALL_FETCH_GRACE_MS = 10_000;
const PRE_CALL_FETCH_POLL_MS = 100;

/**
 * The run as its conversation starts from it. An inbound call's stream can open while its workflow
 * still runs the agent's pre-call fetch (an outbound call is dialed after it): the conversation
 * waits for the fetch to be on the run, within a bound, so the greeting can use what it brought.
 */
async function withPreCallFetch(dataSource: DataSource, run: Run, log: Logger): Promise<Run> {
  const direction = run.callType === 'inbound' ? 'inbound' : 'outbound';
  const version = await createCallTargetRepository(dataSource).getVersion(run.agentVersionId);
  if (!fetchesFor(preCallFetchSettings(version.workflowDefinition), direction)) return run;
  const deadline = Date.now() + PRE_CALL_FETCH_BUDGET_MS + PRE_CALL_FETCH_GRACE_MS;
  const runs = createRunRepository(dataSource);
  for (let current = run; ;) {
    if ('pre_call_fetch' in current.logs) return current;
    if (Date.now() >= deadline) {
      log.warn('the pre-call fetch did not finish in time; the conversation starts without it');
      return current;
    }
    await delay(PRE_CALL_FETCH_POLL_MS);
    current = await runs.getById(run.id);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
