// The subset of OpenAPI 3.1 that svc writes: the generator (openapi.json) and the runtime (the document
// openapiPlugin serves) alike. Plain JSON: whoever writes it serialises it.
import type { JsonSchema } from '../ir.js';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  jsonSchemaDialect: string;
  servers: OpenApiServer[];
  /** The generated-file header line, so the document says where it came from. */
  'x-generated': string;
  tags?: OpenApiTag[];
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes?: Record<string, OpenApiSecurityScheme>;
  };
}

export interface OpenApiServer {
  url: string;
  description?: string;
}

export interface OpenApiTag {
  name: string;
  description?: string;
}

export type OpenApiMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch';
export type OpenApiPathItem = Partial<Record<OpenApiMethod, OpenApiOperation>>;

export type OpenApiSecurityRequirement = Record<string, string[]>;

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  security: OpenApiSecurityRequirement[];
  parameters?: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses: Record<string, OpenApiResponse>;
  /** API-key scopes the route requires (`meta.scopes`), also on the key header scheme of `security`. */
  'x-scopes'?: string[];
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  deprecated?: boolean;
  style?: 'form' | 'simple';
  explode?: boolean;
  schema: JsonSchema;
}

export interface OpenApiMediaType {
  schema: JsonSchema;
  /** multipart/form-data only: per property, e.g. the content types a file part may have. */
  encoding?: Record<string, OpenApiEncoding>;
}

export interface OpenApiEncoding {
  /** One media type or range, or several separated by commas. */
  contentType: string;
}

export interface OpenApiRequestBody {
  description?: string;
  required: boolean;
  content: Record<string, OpenApiMediaType>;
}

export interface OpenApiHeader {
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiHeader>;
  content?: Record<string, OpenApiMediaType>;
}

export type OpenApiSecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; description?: string };
