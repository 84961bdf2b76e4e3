// The five server scenarios svc must pass (issue: initialize, ping, tools-list, session lifecycle,
// DNS-rebinding protection) and the check ids each emits against a conforming stateful server at the
// runner's default spec version (2025-11-25). Shared by the SDK reference run and svc's own.
import type { ConformanceCheck } from './run-conformance.js';

/** Check ids each scenario emits against a conforming stateful server at the default spec version. */
export const EXPECTED_CHECK_IDS: Record<string, string[]> = {
  'server-initialize': ['server-initialize', 'server-session-id-visible-ascii', 'wire-schema-valid'],
  ping: ['ping', 'wire-schema-valid'],
  'tools-list': ['tools-list', 'tools-name-format', 'wire-schema-valid'],
  'server-session-lifecycle': [
    'server-session-initialized-accepted',
    'server-session-delete-accepted',
    'server-session-terminated-returns-404',
  ],
  'dns-rebinding-protection': ['localhost-host-rebinding-rejected', 'localhost-host-valid-accepted'],
};

/** One line per check, for assertion messages. */
export function summary(checks: readonly ConformanceCheck[]): string {
  return checks
    .map((check) => `${check.id}=${check.status}${check.errorMessage ? ` (${check.errorMessage})` : ''}`)
    .join('\n');
}
