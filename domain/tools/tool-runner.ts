import type { AddressPolicy } from '../../platform/address-guard';
import {
  guardedRequest,
  OutboundRefusedError,
  type OutboundAnswer,
  type OutboundRequest,
} from '../../platform/outbound-http';
import type { ConversationTools, ToolInvocation, ToolOutcome } from '../../agent-runtime/tools';
import { calculate, CalculatorError } from './calculator';
import { argumentsSchema, toolFunctionName } from './function-names';
import {
  buildHttpToolRequest,
  httpToolResult,
  ToolArgumentsError,
  type ToolCallContext,
  type ToolResult,
} from './http-tool';
import { renderTemplate } from '../agents/templates';
import { TransferDestinationError, transferDestination } from './transfer-destination';
import type { HttpApiConfig, ToolDefinition, ToolFunction } from './types';

/** A stored tool, as the runner needs it. */
export interface RunnableTool {
  toolUuid: string;
  name: string;
  description: string;
  definition: ToolDefinition;
}

export interface ToolRunnerDeps {
  /** The outbound address guard (`ALLOW_PRIVATE_WEBHOOKS` opens it, nothing else). */
  policy: AddressPolicy;
  /** The headers a credential of the organization adds to a request; throws when it is missing. */
  credentialHeaders(organizationId: number, credentialUuid: string): Promise<Record<string, string>>;
  /** The signature headers of a request (method, URL, id, body), under the organization's webhook signing secret. */
  signatureHeaders(
    organizationId: number,
    request: { method: string; url: string; id: string; body: string },
  ): Promise<Record<string, string>>;
  /** Replaceable in tests. */
  send?: typeof guardedRequest;
}

/** The most of a tool's answer read from the network; the model sees less (MAX_RESULT_CHARS). */
const MAX_ANSWER_BYTES = 256 * 1024;
const MAX_REDIRECTS = 3;

/** The `Idempotency-Key` of a tool call: the same for a retried or replayed request of the same call. */
export const toolIdempotencyKey = (runId: number, sequence: number): string => `run-${runId}-tool-${sequence}`;

/** A request as shown to a person (the test endpoint): credential header values masked. */
export interface ShownRequest extends OutboundRequest {
  headers: Record<string, string>;
}

export interface HttpToolExchange {
  request: ShownRequest;
  result: ToolResult;
  /** Whatever came back, undefined when nothing did. */
  answer?: { status: number; content_type?: string; body_excerpt: string; truncated: boolean };
  duration_ms: number;
}

const mask = (value: string): string =>
  value.length <= 4 ? '****' : `${'*'.repeat(value.length - 4)}${value.slice(-4)}`;

/**
 * Runs the tools of one organization's conversation (or a test): HTTP tools through the address
 * guard, with the credential's headers, an `Idempotency-Key` per run and call, and a signature
 * under the organization's webhook signing secret; `end_call`, `calculator` and `transfer_call` (its
 * destination) locally.
 */
export class ToolRunner {
  constructor(
    private readonly deps: ToolRunnerDeps,
    private readonly organizationId: number,
  ) {}

  /** One HTTP tool request, with what was sent (credentials masked) and what came back. */
  async exchange(
    config: HttpApiConfig,
    args: Record<string, unknown>,
    context: ToolCallContext,
    idempotencyKey: string,
    signal?: AbortSignal,
  ): Promise<HttpToolExchange> {
    const started = Date.now();
    let built;
    try {
      built = buildHttpToolRequest(config, args, context);
    } catch (error) {
      if (!(error instanceof ToolArgumentsError)) throw error;
      return {
        request: { method: config.method, url: config.url, headers: {} },
        result: { ok: false, error: error.message },
        duration_ms: Date.now() - started,
      };
    }
    let credential: Record<string, string> = {};
    if (config.credential_uuid) {
      try {
        credential = await this.deps.credentialHeaders(this.organizationId, config.credential_uuid);
      } catch (error) {
        return {
          request: { ...built, headers: built.headers },
          result: { ok: false, error: (error as Error).message },
          duration_ms: Date.now() - started,
        };
      }
    }
    let signature: Record<string, string>;
    try {
      signature = await this.deps.signatureHeaders(this.organizationId, {
        method: built.method,
        url: built.url,
        id: idempotencyKey,
        body: built.body ?? '',
      });
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      // The rendered URL does not parse: the guard below refuses it with the reason.
      signature = {};
    }
    const request: OutboundRequest = {
      ...built,
      headers: { ...built.headers, ...credential, 'Idempotency-Key': idempotencyKey, ...signature },
    };
    const shown: ShownRequest = {
      ...request,
      headers: Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, name in credential ? mask(value) : value]),
      ),
    };
    let answer: OutboundAnswer;
    try {
      answer = await (this.deps.send ?? guardedRequest)(request, this.deps.policy, {
        timeoutMs: config.timeout_ms,
        deadlineMs: config.timeout_ms,
        maxAnswerBytes: MAX_ANSWER_BYTES,
        maxRedirects: MAX_REDIRECTS,
        privateHeaders: Object.keys(credential),
        signal,
      });
    } catch (error) {
      const refused = error instanceof OutboundRefusedError;
      return {
        request: shown,
        result: { ok: false, error: refused ? `refused: ${error.message}` : (error as Error).message },
        duration_ms: Date.now() - started,
      };
    }
    const contentType = answer.headers['content-type'];
    return {
      request: shown,
      result: httpToolResult(answer.status, answer.body, contentType, answer.truncated),
      answer: {
        status: answer.status,
        ...(contentType ? { content_type: contentType } : {}),
        body_excerpt: answer.body.toString('utf8').slice(0, 2_000),
        truncated: answer.truncated,
      },
      duration_ms: Date.now() - started,
    };
  }

  /** The engine's view: the node's tools as functions, and one call run. */
  forConversation(tools: RunnableTool[], runId: number, initialContext: Record<string, unknown>): ConversationTools {
    const byUuid = new Map(
      tools.map((tool): [string, ToolFunction] => [
        tool.toolUuid,
        {
          toolUuid: tool.toolUuid,
          name: toolFunctionName(tool.name),
          description: tool.description || tool.name,
          parameters: argumentsSchema(tool.definition),
          definition: tool.definition,
        },
      ]),
    );
    return {
      forNode: (node) => node.tool_uuids.flatMap((uuid) => byUuid.get(uuid) ?? []),
      invoke: (invocation) => this.invoke(invocation, runId, initialContext),
    };
  }

  private async invoke(
    { fn, args, sequence, gatheredContext }: ToolInvocation,
    runId: number,
    initialContext: Record<string, unknown>,
  ): Promise<ToolOutcome> {
    const { definition } = fn;
    switch (definition.type) {
      case 'http_api': {
        const { result } = await this.exchange(
          definition.config,
          args,
          { initialContext, gatheredContext },
          toolIdempotencyKey(runId, sequence),
        );
        return { result };
      }
      case 'end_call': {
        const { config } = definition;
        const reason = config.endCallReason && typeof args.reason === 'string' ? args.reason.trim() : undefined;
        return {
          result: { ok: true, data: 'The call ends now.' },
          endCall: {
            ...(reason ? { reason } : {}),
            ...(config.messageType === 'custom' && config.customMessage ? { message: config.customMessage } : {}),
          },
        };
      }
      case 'transfer_call': {
        const { config } = definition;
        try {
          const destination = transferDestination(config, args, { initialContext, gatheredContext });
          return {
            result: { ok: true, data: 'The transfer starts now.' },
            transfer: {
              request: {
                destination,
                mode: config.mode,
                ringTimeoutSeconds: config.ring_timeout_seconds,
                ...(config.mode === 'warm' && config.warm_message
                  ? { announcement: renderTemplate(config.warm_message, { initialContext, gatheredContext }).trim() }
                  : {}),
              },
              ...(config.message ? { message: config.message } : {}),
            },
          };
        } catch (error) {
          if (error instanceof TransferDestinationError) return { result: { ok: false, error: error.message } };
          throw error;
        }
      }
      case 'calculator': {
        const expression = args.expression;
        if (typeof expression !== 'string') return { result: { ok: false, error: 'expression must be a string' } };
        try {
          return { result: { ok: true, data: { expression, result: calculate(expression) } } };
        } catch (error) {
          if (error instanceof CalculatorError) return { result: { ok: false, error: error.message } };
          throw error;
        }
      }
      case 'knowledge_base':
        // Retrieval is run by the knowledge base's own tools (domain/knowledge-base/retrieval-tool.ts).
        return { result: { ok: false, error: 'the knowledge base is not available here' } };
    }
  }
}
