// The clientInfo McpClient introduces itself with by default: svckit and the installed package's version.
import { packageVersion } from '../../../shared/package-root.js';
import type { Implementation } from '../protocol/types.js';

let cached: Implementation | undefined;

function svckitVersion(): string {
  try {
    return packageVersion();
  } catch {
    // Not loaded from svckit's files (bundled): the version is unknown.
    return '0.0.0';
  }
}

export function defaultClientInfo(): Implementation {
  cached ??= { name: 'svckit', version: svckitVersion() };
  return { ...cached };
}
