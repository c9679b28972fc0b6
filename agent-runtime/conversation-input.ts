import type { Callee, ConversationInput } from './contract';

/** The rows a conversation is built from (a run, its agent version and its agent), as plain values. */
export interface ConversationSource {
  runId: number;
  initialContext: Record<string, unknown>;
  workflowDefinition: Record<string, unknown>;
  workflowConfigurations: Record<string, unknown>;
  templateContextVariables: Record<string, unknown>;
  /** The agent's `call_disposition_codes`. */
  callDispositionCodes: { disposition_codes: unknown[] };
}

/** `call_disposition_codes.disposition_codes` holds strings, or objects naming a `code`. */
export const dispositionCodesOf = (codes: ConversationSource['callDispositionCodes']): string[] =>
  codes.disposition_codes.flatMap((entry) => {
    if (typeof entry === 'string') return [entry];
    const code = (entry as { code?: unknown } | null)?.code;
    return typeof code === 'string' ? [code] : [];
  });

/** What the engine needs for one call, the same for the simulated callee and a live call. */
export function conversationInput(
  source: ConversationSource,
  maxDurationSeconds: number,
  callee: Callee,
): ConversationInput {
  return {
    runId: source.runId,
    definition: source.workflowDefinition,
    workflowConfigurations: source.workflowConfigurations,
    templateContextVariables: source.templateContextVariables,
    initialContext: source.initialContext,
    dispositionCodes: dispositionCodesOf(source.callDispositionCodes),
    maxDurationSeconds,
    callee,
  };
}
