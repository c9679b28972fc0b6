import { z } from '../zod';
import { JSON_LIMITS } from '../../domain/limits';
import { boundedJsonObject, JSON_BOUNDS_DESCRIPTION, jsonBounds } from './limits';
import { DateTimeString, EXAMPLE_TIME, IdParam, name, text } from './common';
import { EXAMPLE_DEFINITION, WorkflowDefinition } from './workflow-definition';
import type { AgentListView, AgentVersionView, AgentView } from '../../domain/agents/types';
import type { Documents, SameShape } from './common';

export const WorkflowIdParams = z.object({ workflow_id: IdParam.openapi({ example: 12 }) });

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
      voicemail_message: text(1000)
        .nullish()
        .openapi({
          description:
            "Spoken after the beep when a machine answers a campaign's call whose `voicemail_action` is `leave_message`; " +
            "template variables (`{{first_name}}`, `{{name | fallback}}`) take the contact's fields.",
          example: 'Hi {{first_name}}, this is Acme Dental about your appointment tomorrow. Please call us back.',
        }),
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

const EXAMPLE_AGENT_UUID = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
/** The example definition as stored and answered: the defaults filled in. */
const STORED_DEFINITION = WorkflowDefinition.parse(EXAMPLE_DEFINITION);

export const CreateAgentFromDefinitionRequest = z
  .object({
    name: AgentName,
    workflow_definition: WorkflowDefinition,
    workflow_configurations: WorkflowConfigurations.optional(),
    template_context_variables: TemplateContextVariables.optional(),
  })
  .openapi('CreateAgentFromDefinitionRequest', {
    example: {
      name: 'Appointment reminder',
      workflow_definition: EXAMPLE_DEFINITION,
      workflow_configurations: { max_call_duration: 300 },
      template_context_variables: { first_name: 'Ada', appointment_time: '10:30' },
    },
  });

export const CreateAgentFromTemplateRequest = z
  .object({
    use_case: name(2000).openapi({ description: 'What the agent is for.' }),
    activity_description: name(10000).openapi({ description: 'What the agent should do on a call, in plain words.' }),
    call_type: z.enum(['inbound', 'outbound']).default('outbound'),
  })
  .openapi('CreateAgentFromTemplateRequest', {
    example: {
      use_case: 'Appointment reminders for a dental clinic',
      activity_description: 'Remind the patient of tomorrow’s appointment and ask them to confirm or cancel it.',
      call_type: 'outbound',
    },
  });

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
    example: { name: 'Appointment reminder (evenings)', workflow_configurations: { max_call_duration: 600 } },
  });

export const AgentStatus = z.enum(['active', 'archived']);

export const UpdateAgentStatusRequest = z
  .object({ status: AgentStatus })
  .openapi('UpdateAgentStatusRequest', { example: { status: 'archived' } });

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
  .openapi('ValidateAgentRequest', { example: { workflow_definition: EXAMPLE_DEFINITION } });

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
  .openapi('Agent', {
    example: {
      id: 12,
      name: 'Appointment reminder',
      status: 'active',
      created_at: EXAMPLE_TIME,
      workflow_definition: STORED_DEFINITION,
      current_definition_id: 31,
      template_context_variables: { first_name: 'Ada', appointment_time: '10:30' },
      call_disposition_codes: { disposition_codes: [] },
      total_runs: 0,
      workflow_configurations: { max_call_duration: 300 },
      version_number: 1,
      version_status: 'published',
      workflow_uuid: EXAMPLE_AGENT_UUID,
    },
  });

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

export const AgentList = AgentListItem.array().openapi({
  example: [
    {
      id: 12,
      name: 'Appointment reminder',
      status: 'active',
      created_at: EXAMPLE_TIME,
      total_runs: 140,
      workflow_uuid: EXAMPLE_AGENT_UUID,
      current_definition_id: 31,
      version_number: 1,
    },
  ],
});

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

export const AgentVersionList = AgentVersionResponse.array().openapi({
  example: [
    {
      id: 31,
      version_number: 1,
      status: 'published',
      created_at: EXAMPLE_TIME,
      workflow_definition: STORED_DEFINITION,
      workflow_configurations: { max_call_duration: 300 },
      template_context_variables: { first_name: 'Ada', appointment_time: '10:30' },
    },
  ],
});

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
  .openapi('WorkflowValidationReport', {
    example: {
      is_valid: false,
      errors: [
        {
          loc: ['workflow_definition', 'edges', 1, 'target'],
          msg: "Edge target 'goodbye' is not a node",
          type: 'value_error',
        },
      ],
    },
  });

// The shapes the domain answers (domain/agents/types.ts), as documented here.
export type AgentDocumented = Documents<SameShape<z.output<typeof AgentResponse>, AgentView>>;
export type AgentListItemDocumented = Documents<SameShape<z.output<typeof AgentListItem>, AgentListView>>;
export type AgentVersionDocumented = Documents<SameShape<z.output<typeof AgentVersionResponse>, AgentVersionView>>;
