// Named error classes of the HTTP core. Codes, statuses and default messages come from the generated
// catalog (spec/errors.yaml), never typed here; the classes only add the structured fields each error carries.
import { catalog } from '../../generated/modules/errors.js';
import { BootError, HttpError } from './errors.js';
import type { RequestPart } from './types.js';

/** One validation problem: a dot-joined path (`items.0.name`, root '') and what is wrong, never the value. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** 400 HTTP_VALIDATION: answered as `{ error: { code, message, part, issues } }`, never with details. */
export class RequestValidationError extends HttpError {
  readonly part: RequestPart;
  readonly issues: readonly ValidationIssue[];

  constructor(part: RequestPart, issues: readonly ValidationIssue[]) {
    super(catalog.HTTP_VALIDATION.status, 'HTTP_VALIDATION', catalog.HTTP_VALIDATION.message);
    this.part = part;
    this.issues = issues;
  }
}

/** 500 HTTP_GUARDS_UNRUNNABLE: guards are registered but the pipeline has no dependency container. */
export class GuardsWithoutContainerError extends HttpError {
  constructor() {
    super(
      catalog.HTTP_GUARDS_UNRUNNABLE.status,
      'HTTP_GUARDS_UNRUNNABLE',
      catalog.HTTP_GUARDS_UNRUNNABLE.message,
    );
  }
}

/** A route and the guarded meta key it declares that no plugin claimed. */
export interface UnguardedMeta {
  route: string;
  key: string;
}

/** Boot: HTTP_UNGUARDED_ROUTE_META. The process refuses to start. */
export class UnguardedRouteMetaError extends BootError {
  readonly unguarded: readonly UnguardedMeta[];

  constructor(unguarded: readonly UnguardedMeta[]) {
    const list = unguarded.map((item) => `${item.route} meta.${item.key}`).join('; ');
    super(
      'HTTP_UNGUARDED_ROUTE_META',
      `${catalog.HTTP_UNGUARDED_ROUTE_META.message} Register the plugin that enforces it, set the key to false, ` +
        `or waive it with allowUnguardedMeta: ${list}`,
    );
    this.unguarded = unguarded;
  }
}

/** One refusal of a meta validator. */
export interface RouteMetaProblem {
  route: string;
  problem: string;
}

/** Boot: HTTP_INVALID_ROUTE_META, listing every problem. Never waived by allowUnguardedMeta. */
export class InvalidRouteMetaError extends BootError {
  readonly problems: readonly RouteMetaProblem[];

  constructor(problems: readonly RouteMetaProblem[]) {
    const list = problems.map((item) => `${item.route}: ${item.problem}`).join('; ');
    super('HTTP_INVALID_ROUTE_META', `${catalog.HTTP_INVALID_ROUTE_META.message} ${list}`);
    this.problems = problems;
  }
}

/** Boot: HTTP_ROUTE_CONFLICT. Two or more routes share method and path. */
export class RouteConflictError extends BootError {
  readonly conflicts: readonly string[];

  constructor(conflicts: readonly string[]) {
    super('HTTP_ROUTE_CONFLICT', `${catalog.HTTP_ROUTE_CONFLICT.message} ${conflicts.join('; ')}`);
    this.conflicts = conflicts;
  }
}

/** Boot (or definition time): HTTP_ROUTE_INVALID. The message names the route and what is wrong. */
export class InvalidRouteError extends BootError {
  constructor(route: string, problem: string, cause?: unknown) {
    super('HTTP_ROUTE_INVALID', `${catalog.HTTP_ROUTE_INVALID.message} ${route}: ${problem}`, { cause });
  }
}
