import type { ConversationResult } from '../../agent-runtime/contract';
import type { RunOutcome } from '../../entities/repositories/run.repository';
import { maskPhoneNumber } from '../../platform/log-redaction';
import {
  callDisposition,
  type RunTransfer,
  type TerminalCallStatus,
  type VoicemailMessage,
} from '../../workflows/definitions';
import { chargeUsd, type Prices } from '../runs/run-queries';

/** How a call ended, as its workflow knows it. */
export interface CallEnding {
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** The conversation of a connected call; null otherwise. */
  conversation: ConversationResult | null;
  /** The voicemail message left on a machine that answered. */
  voicemail?: VoicemailMessage;
  /** The call's transfer attempts, oldest first. */
  transfers?: RunTransfer[];
}

/**
 * The run's outcome for a call that ended so: its disposition, charge, gathered context, logs
 * (transcript, path, opt-out, latencies, tool calls, transfers with masked destinations), usage
 * and cost. A voicemail message left without a conversation is the transcript's one line, said `at`.
 */
export function runOutcomeOf(
  { callStatus, durationSeconds, conversation, voicemail, transfers }: CallEnding,
  prices: Prices,
  at: Date,
): RunOutcome {
  const disposition = callDisposition(callStatus, conversation, voicemail !== undefined);
  const tokens = conversation?.usage.totalTokens ?? 0;
  const charge = chargeUsd(durationSeconds, tokens, prices);
  return {
    callDurationSeconds: durationSeconds,
    platformTokenUsage: tokens,
    chargeUsd: charge,
    disposition,
    gatheredContext: {
      ...(conversation?.gatheredContext ?? {}),
      call_status: callStatus,
      mapped_call_disposition: disposition,
      ...(voicemail ? { voicemail_message: voicemail.text } : {}),
    },
    logs: {
      transcript:
        conversation?.transcript ??
        (voicemail ? [{ at: at.toISOString(), role: 'assistant', text: voicemail.text }] : []),
      ...(conversation ? { node_path: conversation.nodePath, ended_by: conversation.endedBy } : {}),
      ...(conversation?.optOut ? { opt_out: conversation.optOut } : {}),
      ...(conversation?.turnLatency ? { turn_latency: conversation.turnLatency } : {}),
      ...(conversation?.toolCalls ? { tool_calls: conversation.toolCalls } : {}),
      ...(transfers && transfers.length > 0
        ? { transfers: transfers.map((item) => ({ ...item, destination: maskPhoneNumber(item.destination) })) }
        : {}),
    },
    hasTranscript: conversation !== null || voicemail !== undefined,
    usageInfo: {
      call_duration_seconds: durationSeconds,
      ...(conversation
        ? {
            llm: {
              model: conversation.usage.model,
              prompt_tokens: conversation.usage.promptTokens,
              completion_tokens: conversation.usage.completionTokens,
              total_tokens: conversation.usage.totalTokens,
            },
            tool_calls: {
              total: conversation.toolCalls?.length ?? 0,
              failed: conversation.toolCalls?.filter((call) => call.status === 'failed').length ?? 0,
            },
          }
        : {}),
    },
    costInfo: {
      call_duration_seconds: durationSeconds,
      platform_token_usage: tokens,
      charge_usd: charge,
      price_per_minute_usd: prices.perMinuteUsd,
      price_per_1k_tokens_usd: prices.per1kTokensUsd,
    },
  };
}
