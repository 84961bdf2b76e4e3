// The byte side of an OpenAPI document: upload bodies (multipart/form-data), raw bodies (opaque bytes) and
// streamed responses. OpenAPI 3.1 describes bytes as `type: string` with `contentMediaType`; `format: binary`
// is kept beside it for the 3.0-era tools that still look for it.
import { EVENT_STREAM, UPLOAD_FILES_PROPERTY, type JsonSchema } from '../ir.js';
import { formatSize } from '../size.js';
import type { OpenApiMediaType, OpenApiRequestBody, OpenApiResponse } from './types.js';

/** Opaque bytes. `contentMediaType` names the type when it is one type, not a range. */
export function binarySchema(mediaType: string): JsonSchema {
  const exact = mediaType === '*/*' ? 'application/octet-stream' : mediaType;
  return {
    type: 'string',
    format: 'binary',
    ...(exact.includes('*') ? {} : { contentMediaType: exact }),
  };
}

/** An upload's limits in bytes and counts; a limit left out is the runtime's default and not described. */
export interface UploadLimitsDescription {
  maxBytes: number;
  maxFiles: number;
  maxFileBytes?: number | undefined;
  maxFields?: number | undefined;
  maxFieldBytes?: number | undefined;
  maxHeaderBytes?: number | undefined;
  allowedTypes?: readonly string[] | undefined;
}

/** An upload body as described: its limits and the object schema of its text fields (refs resolved). */
export interface UploadBodyDescription {
  limits: UploadLimitsDescription;
  fields?: JsonSchema | undefined;
}

/** A raw body as described: its limit (absent: the 1 MiB default) and the media types it expects. */
export interface RawBodyDescription {
  maxBytes?: number | undefined;
  contentTypes?: readonly string[] | undefined;
}

/**
 * multipart/form-data: the declared text fields, and the files under `files` (the runtime accepts file
 * parts under any field name; the handler reads each part's own). `encoding` lists the allowed types.
 */
export function uploadRequestBody(
  body: UploadBodyDescription,
  rewrite: (schema: JsonSchema) => JsonSchema,
): OpenApiRequestBody {
  const { limits } = body;
  const fields = body.fields ?? {};
  const fieldSchema = typeof fields === 'object' ? fields : {};
  const properties: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries((fieldSchema.properties ?? {}) as Record<string, JsonSchema>))
    properties[name] = rewrite(schema);
  const perFile =
    limits.maxFileBytes === undefined ? '' : `, each at most ${formatSize(limits.maxFileBytes)}`;
  properties[UPLOAD_FILES_PROPERTY] = {
    type: 'array',
    description: `The file parts: at most ${limits.maxFiles}${perFile}. Any field name is accepted; the handler reads each part's own.`,
    maxItems: limits.maxFiles,
    items: binarySchema('application/octet-stream'),
  };
  const required = Array.isArray(fieldSchema.required) ? fieldSchema.required : [];
  const media: OpenApiMediaType = {
    schema: { type: 'object', properties, ...(required.length > 0 ? { required: [...required] } : {}) },
  };
  if (limits.allowedTypes !== undefined)
    media.encoding = { [UPLOAD_FILES_PROPERTY]: { contentType: limits.allowedTypes.join(', ') } };
  return {
    description: uploadDescription(body),
    required: true,
    content: { 'multipart/form-data': media },
  };
}

function uploadDescription({ limits }: UploadBodyDescription): string {
  const lines = [
    "multipart/form-data, read as a stream once the route's guards have passed.",
    '',
    `- whole body: at most ${formatSize(limits.maxBytes)}`,
    `- files: at most ${limits.maxFiles}${limits.maxFileBytes === undefined ? '' : `, each at most ${formatSize(limits.maxFileBytes)}`}`,
  ];
  if (limits.allowedTypes !== undefined) lines.push(`- file types: ${limits.allowedTypes.join(', ')}`);
  if (limits.maxFields !== undefined) lines.push(`- text fields: at most ${limits.maxFields}`);
  if (limits.maxFieldBytes !== undefined)
    lines.push(`- text field value: at most ${formatSize(limits.maxFieldBytes)}`);
  if (limits.maxHeaderBytes !== undefined)
    lines.push(`- header block of each part: at most ${formatSize(limits.maxHeaderBytes)}`);
  return lines.join('\n');
}

/** The bytes exactly as received; optional, since a request without a body reads as no bytes. */
export function rawRequestBody(body: RawBodyDescription): OpenApiRequestBody {
  const types = body.contentTypes ?? ['*/*'];
  const content: Record<string, OpenApiMediaType> = {};
  for (const type of types) content[type] = { schema: binarySchema(type) };
  const limit =
    body.maxBytes === undefined ? 'at most 1 MiB (the default)' : `at most ${formatSize(body.maxBytes)}`;
  return {
    description: `The request bytes exactly as received, ${limit}.`,
    required: false,
    content,
  };
}

/** A streamed success response; a download may name its file in Content-Disposition. */
export function streamResponse(status: string, reason: string, mediaType: string): OpenApiResponse {
  if (mediaType === EVENT_STREAM) {
    return {
      description: `${reason}: server-sent events.`,
      content: { [mediaType]: { schema: { type: 'string', description: 'A text/event-stream.' } } },
    };
  }
  return {
    description: `${reason}: streamed ${mediaType}.`,
    headers: {
      'Content-Disposition': {
        description: `Sent when the ${status} answer names a file: \`attachment\` or \`inline\`, with \`filename\` and, for names that are not ASCII, \`filename*\`.`,
        schema: { type: 'string' },
      },
    },
    content: { [mediaType]: { schema: binarySchema(mediaType) } },
  };
}
