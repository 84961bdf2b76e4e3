// The error side of openapi.json: the two envelope schemas and one response
// per error status a route can answer, whose `error.code` is narrowed to the codes answered with it.
import type { JsonSchema, JsonSchemaObject } from '../ir.js';
import type { ErrorStatusGroup } from './error-codes.js';
import type { OpenApiResponse } from './types.js';

export const ERROR_ENVELOPE = 'ErrorEnvelope';
export const VALIDATION_ERROR_ENVELOPE = 'ValidationErrorEnvelope';
export const VALIDATION_CODE = 'HTTP_VALIDATION';

const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function errorEnvelopeSchemas(): Record<string, JsonSchema> {
  return {
    [ERROR_ENVELOPE]: {
      type: 'object',
      description: 'Every error answer: a stable code, a human-readable message and optional public details.',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', description: 'Stable, machine-readable error code.' },
            message: { type: 'string', description: 'Human-readable message; neutral on 5xx.' },
            details: {
              type: 'object',
              description: 'Public data the server chose to add (only on deliberately raised errors).',
            },
          },
        },
      },
    },
    [VALIDATION_ERROR_ENVELOPE]: {
      type: 'object',
      description: 'A request part failed validation. Never carries `details`.',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'part', 'issues'],
          properties: {
            code: { type: 'string', const: VALIDATION_CODE },
            message: { type: 'string' },
            part: { type: 'string', enum: ['body', 'query', 'params'], description: 'Which part failed.' },
            issues: {
              type: 'array',
              items: {
                type: 'object',
                required: ['path', 'message'],
                properties: {
                  path: {
                    type: 'string',
                    description: "Dot-joined path of the offending value (`items.0.name`); '' is the root.",
                  },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  };
}

/** The response for one error status: envelope schema(s) and a description listing codes and messages. */
export function errorResponse(group: ErrorStatusGroup): OpenApiResponse {
  const lines = group.errors.map((error) => `- \`${error.code}\`: ${error.message}`);
  const response: OpenApiResponse = {
    description: `Error codes answered with status ${group.status}:\n\n${lines.join('\n')}`,
    content: { 'application/json': { schema: errorSchema(group) } },
  };
  if (group.errors.some((error) => error.code === 'RATE_LIMITED')) {
    response.headers = {
      'Retry-After': {
        description: 'Seconds to wait before retrying (sent with RATE_LIMITED).',
        schema: { type: 'integer', minimum: 0 },
      },
    };
  }
  return response;
}

function errorSchema(group: ErrorStatusGroup): JsonSchema {
  const codes = group.errors.map((error) => error.code).filter((code) => code !== VALIDATION_CODE);
  const validation = codes.length < group.errors.length;
  const coded: JsonSchemaObject = {
    allOf: [
      componentRef(ERROR_ENVELOPE),
      { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } },
    ],
  };
  if (!validation) return coded;
  if (codes.length === 0) return componentRef(VALIDATION_ERROR_ENVELOPE);
  // The validation envelope's code is a const outside `codes`, so exactly one branch matches.
  return { oneOf: [componentRef(VALIDATION_ERROR_ENVELOPE), coded] };
}
