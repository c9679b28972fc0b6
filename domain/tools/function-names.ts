import type { ToolDefinition, ToolParameter } from './types';

/** The function name of a tool, as the model calls it: lower-cased, anything but `[a-z0-9_]` as `_`. */
export const toolFunctionName = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');

const parameterSchema = ({ type, description }: ToolParameter): Record<string, unknown> => ({
  type,
  description,
  ...(type === 'array' ? { items: {} } : {}),
});

/** The JSON Schema of the arguments the model gives the tool. */
export function argumentsSchema(definition: ToolDefinition): Record<string, unknown> {
  switch (definition.type) {
    case 'http_api': {
      const { parameters } = definition.config;
      return {
        type: 'object',
        properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameterSchema(parameter)])),
        required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        additionalProperties: false,
      };
    }
    case 'end_call':
      return definition.config.endCallReason
        ? {
            type: 'object',
            properties: {
              reason: {
                type: 'string',
                description:
                  definition.config.endCallReasonDescription ?? 'Why the call ends; it becomes the call disposition.',
              },
            },
            required: ['reason'],
            additionalProperties: false,
          }
        : { type: 'object', properties: {}, additionalProperties: false };
    case 'calculator':
      return {
        type: 'object',
        properties: {
          expression: {
            type: 'string',
            description: 'An arithmetic expression: numbers, + - * / % ^, parentheses, e.g. "(12.5 * 4) - 3".',
          },
        },
        required: ['expression'],
        additionalProperties: false,
      };
    case 'transfer_call':
      return definition.config.destination_source === 'dynamic'
        ? {
            type: 'object',
            properties: {
              destination: {
                type: 'string',
                description: 'Where to transfer the caller, one of these',
                enum: definition.config.allowed_destinations ?? [],
              },
            },
            required: ['destination'],
            additionalProperties: false,
          }
        : { type: 'object', properties: {}, additionalProperties: false };
  }
}
