// Where spans go when tracingPlugin() is given no exporter: to the OTLP endpoint named by the standard
// OpenTelemetry environment variables, as every OpenTelemetry SDK does, or nowhere. Keeping spans nobody
// reads would cost memory and garbage-collector time on every request for nothing (the in-memory exporter's
// share: bench/RESULTS.md, `edge-memory`). Propagation (`traceparent`, `context.traceId` for logs) works
// either way.
import { invalidEnvSetting } from '../../config/module-settings.js';
import type { Logger } from '../../log/logger.js';
import { otlpHttpExporter } from './otlp-exporter.js';
import type { SpanExporter } from './span.js';

/** OTLP/HTTP's path for traces, appended to OTEL_EXPORTER_OTLP_ENDPOINT (OpenTelemetry exporter spec). */
const TRACES_PATH = 'v1/traces';
/** The transports whose endpoint accepts an OTLP/HTTP JSON post; gRPC listens elsewhere and speaks HTTP/2. */
const HTTP_PROTOCOLS = new Set(['http/json', 'http/protobuf']);

/** Spans made but kept by no one. */
export const DROP_SPANS: SpanExporter = Object.freeze({ export() {} });

type Env = Readonly<Record<string, string | undefined>>;

function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values percent-encoded. */
function parseHeaders(text: string | undefined, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === undefined) return headers;
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, at).trim();
    if (at < 1 || key === '') throw invalidEnvSetting(name, 'expected key=value pairs separated by commas');
    try {
      headers[key.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw invalidEnvSetting(name, 'a value has malformed percent-encoding');
    }
  }
  return headers;
}

/**
 * The exporter the environment asks for; DROP_SPANS when it names no endpoint. A variable svc cannot use
 * refuses to start (CONFIG_INVALID naming it). `logger` receives the exporter's failures.
 */
export function exporterFromEnv(env: Env = process.env, logger?: Logger): SpanExporter {
  const tracesEndpoint = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (tracesEndpoint === undefined && endpoint === undefined) return DROP_SPANS;
  const protocol =
    setting(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? setting(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && !HTTP_PROTOCOLS.has(protocol)) {
    throw invalidEnvSetting(
      setting(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined
        ? 'OTEL_EXPORTER_OTLP_PROTOCOL'
        : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
      `OTLP protocol "${protocol}" is not supported; svc exports OTLP/HTTP JSON ` +
        "(set OTEL_EXPORTER_OTLP_PROTOCOL=http/json and point the endpoint at the collector's HTTP port, usually 4318)",
    );
  }
  // The signal-specific variable is the full URL; the general one is a base that gets /v1/traces.
  const url = tracesEndpoint ?? `${(endpoint as string).replace(/\/+$/, '')}/${TRACES_PATH}`;
  const headers = {
    ...parseHeaders(setting(env, 'OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseHeaders(setting(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
  };
  return otlpHttpExporter({ url, headers, ...(logger === undefined ? {} : { logger }) });
}
