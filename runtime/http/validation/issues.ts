// ajv errors → the envelope's `issues`: dot-joined paths, property-level paths for required and additional
// properties, ajv's messages (which never contain the rejected value), capped at MAX_VALIDATION_ISSUES.
import { RequestValidationError, type ValidationIssue } from '../http-errors.js';
import type { RequestPart, ValidatorError } from '../types.js';

/** At most this many issues are answered; the rest are dropped (the first ones usually explain the rest). */
export const MAX_VALIDATION_ISSUES = 20;

/** `/items/0/name` → `items.0.name`; the root is ''. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  const segments = pointer.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    segments[i] = (segments[i] as string).replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return segments.join('.');
}

function join(path: string, property: string): string {
  return path === '' ? property : `${path}.${property}`;
}

/** One ajv error as an issue. */
export function toIssue(error: ValidatorError): ValidationIssue {
  const path = pointerToPath(error.instancePath);
  const params = error.params;
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
      if (typeof params.missingProperty === 'string') {
        return { path: join(path, params.missingProperty), message: 'is required' };
      }
      break;
    case 'additionalProperties':
      if (typeof params.additionalProperty === 'string') {
        return { path: join(path, params.additionalProperty), message: 'is not allowed' };
      }
      break;
    case 'unevaluatedProperties':
      if (typeof params.unevaluatedProperty === 'string') {
        return { path: join(path, params.unevaluatedProperty), message: 'is not allowed' };
      }
      break;
  }
  return { path, message: error.message ?? `failed ${error.keyword}` };
}

/** The issues of a failed validation, duplicates removed, capped. */
export function toIssues(errors: readonly ValidatorError[] | null | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    const issue = toIssue(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
    if (issues.length === MAX_VALIDATION_ISSUES) break;
  }
  if (issues.length === 0) issues.push({ path: '', message: 'is invalid' });
  return issues;
}

/** The error a failed validation of one request part answers with. */
export function validationError(
  part: RequestPart,
  errors: readonly ValidatorError[] | null | undefined,
): RequestValidationError {
  return new RequestValidationError(part, toIssues(errors));
}
