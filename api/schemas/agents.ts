import { z } from '../zod';
import { boundedJsonObject, JSON_BOUNDS_DESCRIPTION, JSON_LIMITS, jsonBounds } from './limits';
import { DateTimeString, IdParam, name, text } from './common';
import { WorkflowDefinition } from './workflow-definition';

export const WorkflowIdParams = z.object({ workflow_id: IdParam });

const dropNulls = (value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== null))
    : value;

/**
 * Call settings, stored per version. The known keys are checked; other keys are kept as sent.
 * Explicit nulls are accepted and dropped (a null means "unset"), and no defaults are filled in:
 * only what was sent is stored.
 */
export const WorkflowConfigurations = z
  .preprocess(
    dropNulls,
    z.looseObject({
      max_call_duration: z.number().int().min(1).max(1200).nullish().openapi({ description: 'Seconds; 300 if unset.' }),
      max_user_idle_timeout: z.number().positive().nullish(),
      smart_turn_stop_secs: z.number().positive().nullish(),
      turn_start_strategy: z.enum(['default', 'min_words', 'provisional_vad']).nullish(),
      turn_start_min_words: z.number().int().min(1).nullish(),
      provisional_vad_pause_secs: z.number().positive().nullish(),
      turn_stop_strategy: z.enum(['transcription', 'turn_analyzer']).nullish(),
      dictionary: text(10000).nullish().openapi({ description: 'Comma-separated speech-to-text key terms.' }),
      context_compaction_enabled: z.boolean().nullish(),
      ambient_noise_configuration: z
        .looseObject({ enabled: z.boolean().nullish(), volume: z.number().min(0).max(1).nullish() })
        .nullish(),
      text_chat_inactivity_timeout_seconds: z.number().int().min(60).max(10500).nullish(),
      external_pbx_field_mappings: z
        .array(z.object({ context_path: text(255).min(1), destination_field: text(255).min(1) }))
        .max(100)
        .nullish(),
      external_pbx_lead_headers: z.array(text(255)).max(50).nullish(),
    }),
  )
  // Other keys are stored as sent, so they are bounded like any free JSON.
  .superRefine(jsonBounds({ bytes: JSON_LIMITS.bytes }))
  .openapi('WorkflowConfigurations', {
    description: `Call settings of a version. \`null\` for a field means unset: it is dropped, never stored. ${JSON_BOUNDS_DESCRIPTION}`,
  });

export const TemplateContextVariables = boundedJsonObject('Default variables, applied to test runs only.').openapi(
  'TemplateContextVariables',
);

const AgentName = name(255);

export const CreateAgentFromDefinitionRequest = z
  .object({
    name: AgentName,
    workflow_definition: WorkflowDefinition,
    workflow_configurations: WorkflowConfigurations.optional(),
    template_context_variables: TemplateContextVariables.optional(),
  })
  .openapi('CreateAgentFromDefinitionRequest');

export const CreateAgentFromTemplateRequest = z
  .object({
    use_case: name(2000).openapi({ description: 'What the agent is for.' }),
    activity_description: name(10000).openapi({ description: 'What the agent should do on a call, in plain words.' }),
    call_type: z.enum(['inbound', 'outbound']).default('outbound'),
  })
  .openapi('CreateAgentFromTemplateRequest');

export const UpdateAgentRequest = z
  .object({
    name: AgentName.optional(),
    workflow_definition: WorkflowDefinition.optional(),
    template_context_variables: TemplateContextVariables.optional(),
    workflow_configurations: WorkflowConfigurations.optional(),
  })
  .openapi('UpdateAgentRequest', {
    description:
      'Each field is optional. A change to the definition, configurations or variables creates a new version.',
  });

export const AgentStatus = z.enum(['active', 'archived']);

export const UpdateAgentStatusRequest = z.object({ status: AgentStatus }).openapi('UpdateAgentStatusRequest');

export const ListAgentsQuery = z.object({ status: AgentStatus.optional() });

export const ValidateAgentRequest = z
  .object({
    workflow_definition: z
      .record(z.string(), z.unknown())
      .superRefine(jsonBounds({ depth: JSON_LIMITS.definitionDepth }))
      .optional()
      .openapi({
        description: `A definition to check; the agent's current one when omitted. At most ${JSON_LIMITS.definitionDepth} levels deep as JSON.`,
      }),
  })
  .openapi('ValidateAgentRequest');

export const DispositionCodes = z.object({ disposition_codes: z.array(z.unknown()) }).openapi('CallDispositionCodes');

export const AgentResponse = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: AgentStatus,
    created_at: DateTimeString,
    workflow_definition: WorkflowDefinition,
    current_definition_id: z.number().int(),
    template_context_variables: TemplateContextVariables,
    call_disposition_codes: DispositionCodes,
    total_runs: z.number().int(),
    workflow_configurations: WorkflowConfigurations,
    version_number: z.number().int(),
    version_status: z.enum(['published', 'archived']),
    workflow_uuid: z.uuid().openapi({ description: "The stable Agent UUID; not a trigger node's `trigger_path`." }),
  })
  .openapi('Agent');

export const AgentListItem = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: AgentStatus,
    created_at: DateTimeString,
    total_runs: z.number().int(),
    workflow_uuid: z.uuid(),
    current_definition_id: z.number().int(),
    version_number: z.number().int(),
  })
  .openapi('AgentListItem');

export const AgentVersionResponse = z
  .object({
    id: z.number().int().openapi({ description: 'The definition id runs record as `definition_id`.' }),
    version_number: z.number().int(),
    status: z.enum(['published', 'archived']).openapi({ description: '`published` for the current version only.' }),
    created_at: DateTimeString,
    workflow_definition: WorkflowDefinition,
    workflow_configurations: WorkflowConfigurations,
    template_context_variables: TemplateContextVariables,
  })
  .openapi('AgentVersion');

export const ValidationReport = z
  .object({
    is_valid: z.boolean(),
    errors: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])).openapi({ description: 'Starts at `workflow_definition`.' }),
        msg: z.string(),
        type: z.string(),
      }),
    ),
  })
  .openapi('WorkflowValidationReport');
