// A handler's value written through its route's compiled serializer (svc build's serializers.js), and the
// development-time check of what was written against the response schema. The serializer never writes a
// property the schema does not declare; a value it cannot write at all (an object or array where the schema
// allows none) is a 500 INTERNAL_ERROR whose report names the route and the fields.
import { errors } from '../../generated/modules/errors.js';
import type { Logger } from '../log/logger.js';
import type { CompiledValidator, ResponseSerializer, Route, SvcRequest, ValidatorError } from './types.js';

/** One place where a response departs from its schema. */
export interface ResponseProblem {
  /** JSON pointer into the response body ('' for the whole body), e.g. `/items/0/title`. */
  path: string;
  message: string;
}

/** Checks a serialized body; logs when it does not match the schema of its status. */
export type ResponseCheck = (status: number, body: string, request: SvcRequest) => void;

/** How a route is named in reports: its id, else method and path. */
export function routeLabel(route: Pick<Route, 'id' | 'method' | 'url'>): string {
  return route.id ?? `${route.method} ${route.url}`;
}

/**
 * Writes `value` through `serializer`. A failure (a value that does not fit, a throwing toJSON, a BigInt)
 * becomes INTERNAL_ERROR: the client gets the neutral 500, the report the route, the status and the fields
 * the response validator finds.
 */
export function serializeResponse(
  route: Route,
  status: number,
  serializer: ResponseSerializer,
  value: unknown,
): string {
  try {
    return serializer(value);
  } catch (error) {
    throw serializationFailure(route, status, value, error);
  }
}

function serializationFailure(route: Route, status: number, value: unknown, cause: unknown): Error {
  const label = routeLabel(route);
  const validator = route.responseValidators?.[status];
  const problems = validator === undefined ? [] : problemsOf(validator, jsonCopy(value));
  const reason = cause instanceof Error ? cause.message : String(cause);
  const fields = problems.length === 0 ? '' : ` (${problems.map(describeProblem).join('; ')})`;
  return errors.INTERNAL_ERROR({
    message: `The ${status} response of route ${label} cannot be serialized: ${reason}${fields}.`,
    internalDetails: { route: label, status, fields: problems },
    cause,
  });
}

/**
 * The check run on every serialized response outside production (NODE_ENV development or test): the body
 * is parsed back and validated with the route's precompiled response validator; a mismatch is logged as a
 * warning naming the route and each field. undefined when the route has no response validators.
 */
export function responseCheck(route: Route, logger: Logger): ResponseCheck | undefined {
  const validators = route.responseValidators;
  if (validators === undefined) return undefined;
  const label = routeLabel(route);
  return (status, body, request) => {
    const validator = validators[status];
    if (validator === undefined) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    const problems = problemsOf(validator, parsed);
    if (problems.length === 0) return;
    logger.warn(
      `response of route ${label} does not match its schema: ${problems.map(describeProblem).join('; ')}`,
      {
        route: label,
        method: request.method,
        url: route.url,
        status,
        requestId: request.context.requestId,
        fields: problems.map((problem) => problem.path),
        problems,
      },
    );
  };
}

/**
 * What `validator` finds wrong in `value`, one entry per field. Undeclared properties are left out: the
 * serializer drops them, so they never reach the client.
 */
function problemsOf(validator: CompiledValidator, value: unknown): ResponseProblem[] {
  if (value === undefined || validator(value)) return [];
  const problems: ResponseProblem[] = [];
  for (const error of validator.errors ?? []) {
    if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') continue;
    problems.push({ path: pathOf(error), message: error.message ?? error.keyword });
  }
  return problems;
}

/** The field an error is about: a missing required property is named itself, not its parent. */
function pathOf(error: ValidatorError): string {
  const missing = error.keyword === 'required' ? error.params.missingProperty : undefined;
  if (typeof missing !== 'string') return error.instancePath;
  return `${error.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function describeProblem(problem: ResponseProblem): string {
  return `${problem.path === '' ? '(body)' : problem.path} ${problem.message}`;
}

/** The value as JSON would carry it (Dates as strings, undefined dropped); undefined when it has no JSON form. */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
