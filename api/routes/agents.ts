import type { ApiDeps } from '../context';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  AgentList,
  AgentResponse,
  AgentVersionList,
  CreateAgentFromDefinitionRequest,
  CreateAgentFromTemplateRequest,
  ListAgentsQuery,
  UpdateAgentRequest,
  UpdateAgentStatusRequest,
  ValidateAgentRequest,
  ValidationReport,
  WorkflowIdParams,
} from '../schemas/agents';
import { WorkflowDefinition } from '../schemas/workflow-definition';
import { createAgent, setAgentStatus, updateAgent } from '../../domain/agents/agent-versions';
import { agentList, agentView, versionList } from '../../domain/agents/agent-views';
import { defaultAgent } from '../../domain/agents/default-agent';
import { draftAgentWithLlm } from '../agent-drafts/llm-agent';
import { toValidationIssues } from '../../domain/validation-issues';
import { loadSecrets } from '../../telephony/secrets';

const NOT_FOUND = errorResponse('Workflow with id {workflow_id} not found');
const TRIGGER_TAKEN = errorResponse("A trigger node's `trigger_path` is already used by another agent");
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['agents'];

export function createAgentRoutes({ dataSource, config }: ApiDeps): Route[] {
  const llmConfigured = Boolean(config.LLM_BASE_URL ?? config.LLM_API_KEY);
  // Agent versions keep their secrets (webhook header values, the QA key) sealed under SECRETS_KEY.
  const saving = { quotas: new Quotas(config), secrets: loadSecrets(config) };
  const { secrets } = saving;

  return [
    defineRoute(
      {
        method: 'post',
        path: '/workflow/create/definition',
        operationId: 'createAgent',
        summary: 'Create an agent from a definition',
        description: 'Creates version 1, published. Missing trigger paths are minted.',
        tags,
        security,
        body: CreateAgentFromDefinitionRequest,
        responses: {
          201: { description: 'Created', schema: AgentResponse },
          409: errorResponse(`${TRIGGER_TAKEN.description}, or ${quotaBreach('agents')}`),
        },
      },
      async (ctx, { body, auth }) => {
        const id = await createAgent(dataSource, auth, saving, body.name, {
          workflowDefinition: body.workflow_definition,
          workflowConfigurations: body.workflow_configurations ?? {},
          templateContextVariables: body.template_context_variables ?? {},
        });
        ctx.status = 201;
        ctx.body = await agentView(dataSource, secrets, auth, id);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/workflow/create/template',
        operationId: 'createAgentFromTemplate',
        summary: 'Create an agent from a description',
        description:
          'The configured language model (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL) drafts the definition; an ' +
          'invalid draft is sent back once for repair. Without a model, a start → conversation → end agent is ' +
          'built from the two texts. The agent is fully editable afterwards.',
        tags,
        security,
        body: CreateAgentFromTemplateRequest,
        responses: {
          201: { description: 'Created', schema: AgentResponse },
          409: errorResponse(`${TRIGGER_TAKEN.description}, or ${quotaBreach('agents')}`),
          502: errorResponse('The language model failed or answered an invalid agent twice'),
        },
      },
      async (ctx, { body, auth }) => {
        const draft = llmConfigured
          ? await draftAgentWithLlm(
              { baseUrl: config.LLM_BASE_URL, apiKey: config.LLM_API_KEY, model: config.LLM_MODEL },
              body,
            )
          : defaultAgent(body);
        const id = await createAgent(dataSource, auth, saving, draft.name, {
          workflowDefinition: draft.definition,
          workflowConfigurations: {},
          templateContextVariables: {},
        });
        ctx.status = 201;
        ctx.body = await agentView(dataSource, secrets, auth, id);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/workflow/fetch',
        operationId: 'listAgents',
        summary: "The organization's agents, newest first",
        description:
          'Every agent of the organization, newest first; `status` narrows the list to active or archived agents.',
        tags,
        security,
        query: ListAgentsQuery,
        responses: { 200: { description: 'Agents', schema: AgentList } },
      },
      async (ctx, { query, auth }) => {
        ctx.body = await agentList(dataSource, auth, query.status);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/workflow/fetch/{workflow_id}',
        operationId: 'getAgent',
        summary: 'An agent with its current version and run count',
        description:
          "The agent with its published version's definition, configurations and variables, and how many runs it has.",
        tags,
        security,
        params: WorkflowIdParams,
        responses: { 200: { description: 'The agent', schema: AgentResponse }, 404: NOT_FOUND },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await agentView(dataSource, secrets, auth, params.workflow_id);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/workflow/{workflow_id}',
        operationId: 'updateAgent',
        summary: 'Update an agent',
        description:
          'A change to `workflow_definition`, `workflow_configurations` or `template_context_variables` ' +
          'publishes version n+1 and archives the previous one, which stays readable. A name alone makes no version.',
        tags,
        security,
        params: WorkflowIdParams,
        body: UpdateAgentRequest,
        responses: {
          200: { description: 'The agent', schema: AgentResponse },
          404: NOT_FOUND,
          409: errorResponse(`${TRIGGER_TAKEN.description}, or ${quotaBreach('agent_versions')}`),
        },
      },
      async (ctx, { params, body, auth }) => {
        await updateAgent(dataSource, auth, saving, params.workflow_id, {
          name: body.name,
          workflowDefinition: body.workflow_definition,
          workflowConfigurations: body.workflow_configurations,
          templateContextVariables: body.template_context_variables,
        });
        ctx.body = await agentView(dataSource, secrets, auth, params.workflow_id);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/workflow/{workflow_id}/status',
        operationId: 'setAgentStatus',
        summary: 'Archive or restore an agent',
        description: 'An archived agent takes no calls; its definition and history are kept.',
        tags,
        security,
        params: WorkflowIdParams,
        body: UpdateAgentStatusRequest,
        responses: { 200: { description: 'The agent', schema: AgentResponse }, 404: NOT_FOUND },
      },
      async (ctx, { params, body, auth }) => {
        await setAgentStatus(dataSource, auth, params.workflow_id, body.status);
        ctx.body = await agentView(dataSource, secrets, auth, params.workflow_id);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/workflow/{workflow_id}/versions',
        operationId: 'listAgentVersions',
        summary: "An agent's versions, newest first",
        description: 'Every stored version of the agent, newest first; only the current one is `published`.',
        tags,
        security,
        params: WorkflowIdParams,
        responses: { 200: { description: 'Versions', schema: AgentVersionList }, 404: NOT_FOUND },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await versionList(dataSource, secrets, auth, params.workflow_id);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/workflow/{workflow_id}/validate',
        operationId: 'validateAgent',
        summary: 'Check a definition without saving it',
        description:
          "Checks `workflow_definition` from the body, or the agent's current definition when the body has none, " +
          'and reports every problem as a 422 would, with `loc` starting at `workflow_definition`.',
        tags,
        security,
        params: WorkflowIdParams,
        body: ValidateAgentRequest,
        responses: { 200: { description: 'The report', schema: ValidationReport }, 404: NOT_FOUND },
      },
      async (ctx, { params, body, auth }) => {
        const agent = await agentView(dataSource, secrets, auth, params.workflow_id);
        const result = WorkflowDefinition.safeParse(body.workflow_definition ?? agent.workflow_definition);
        const errors = result.success
          ? []
          : toValidationIssues(result.error, 'body').map((issue) => ({
              ...issue,
              loc: ['workflow_definition', ...issue.loc.slice(1)],
            }));
        ctx.body = { is_valid: errors.length === 0, errors };
      },
    ),
  ];
}
