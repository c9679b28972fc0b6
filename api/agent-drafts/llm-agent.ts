import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from '../zod';
import { UpstreamError } from '../../domain/errors';
import { WorkflowDefinition } from '../schemas/workflow-definition';
import type { AgentBrief } from '../../domain/agents/default-agent';

export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model: string;
}

/** What the model must answer, checked by the same schema (and graph rules) as any saved definition. */
const GeneratedAgent = z.object({ name: z.string().trim().min(1).max(255), workflow_definition: WorkflowDefinition });
type GeneratedAgent = z.output<typeof GeneratedAgent>;

const INSTRUCTIONS = `You design voice agents as conversation graphs. Answer with one JSON object
{"name": string, "workflow_definition": {"nodes": [...], "edges": [...]}} matching the JSON schema.
Rules: exactly one node of type "startCall"; at least one "agentNode" and one "endCall"; every agentNode
and endCall has an incoming edge; endCall nodes have no outgoing edges; every edge's source and target
are node ids; labels of edges leaving one node differ. Each node's data has "name" and "prompt".
Each edge's data has "label" (a short action name) and "condition" (when to follow it).
Prompts may use {{variable}} placeholders for data supplied when the call starts.`;

const MAX_REPORTED_PROBLEMS = 5;

/** Parses the model's answer; a string listing the problems when it is not a valid agent. */
function parseAnswer(content: string): GeneratedAgent | string {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return 'the answer is not JSON';
  }
  const result = GeneratedAgent.safeParse(json);
  if (result.success) return result.data;
  return result.error.issues
    .slice(0, MAX_REPORTED_PROBLEMS)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

async function complete(client: OpenAI, model: string, messages: ChatCompletionMessageParam[]): Promise<string> {
  try {
    const completion = await client.chat.completions.create({
      model,
      messages,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'agent',
          schema: z.toJSONSchema(GeneratedAgent, { io: 'input', unrepresentable: 'any' }),
          strict: false,
        },
      },
    });
    return completion.choices[0]?.message.content ?? '';
  } catch (error) {
    if (error instanceof OpenAI.APIError) throw new UpstreamError(`Language model request failed: ${error.message}`);
    throw error;
  }
}

/**
 * Asks the configured OpenAI-compatible model for an agent. An invalid answer gets one repair
 * round (the problems are sent back); a second invalid answer is a 502 naming the problems.
 */
export async function draftAgentWithLlm(
  settings: LlmSettings,
  brief: AgentBrief,
): Promise<{ name: string; definition: GeneratedAgent['workflow_definition'] }> {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    // Local OpenAI-compatible servers often need no key, but the client insists on one.
    apiKey: settings.apiKey ?? 'unused',
    maxRetries: 1,
    timeout: 60_000,
  });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: INSTRUCTIONS },
    {
      role: 'user',
      content: `Call type: ${brief.call_type}\nUse case: ${brief.use_case}\nWhat the agent does: ${brief.activity_description}`,
    },
  ];
  let problems = '';
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const content = await complete(client, settings.model, messages);
    const answer = parseAnswer(content);
    if (typeof answer !== 'string') return { name: answer.name, definition: answer.workflow_definition };
    problems = answer;
    messages.push(
      { role: 'assistant', content },
      { role: 'user', content: `That answer is invalid: ${problems}. Send the whole corrected JSON object only.` },
    );
  }
  throw new UpstreamError(`The language model returned an invalid agent twice: ${problems}`);
}
