// The undeclared-error-code warning stays bounded whatever codes a handler throws: a handler that passes an
// upstream's codes through must not grow the remembered set (or the log) without end.
import { describe, expect, it } from 'vitest';
import { collectingLogger, HttpError, route } from 'svckit';
import {
  MAX_WARNED_PAIRS,
  UNDECLARED_ERROR_MESSAGE,
  UNDECLARED_ERRORS_CAPPED_MESSAGE,
  undeclaredErrorWarning,
} from '../../runtime/log/undeclared-error-codes.js';

const proxy = route({ id: 'proxy', method: 'GET', url: '/proxy', errors: [], handler: () => undefined });

describe('undeclaredErrorWarning', () => {
  it('warns about at most MAX_WARNED_PAIRS route and code pairs, then once that further ones go unreported', () => {
    const logger = collectingLogger();
    const warn = undeclaredErrorWarning(logger);
    for (let index = 0; index < MAX_WARNED_PAIRS + 50; index++)
      warn(proxy, new HttpError(502, `UPSTREAM_${index}`, 'Upstream failed.'));
    const lines = logger.at('warn');
    expect(lines).toHaveLength(MAX_WARNED_PAIRS + 1);
    expect(lines.filter((line) => line.msg === UNDECLARED_ERROR_MESSAGE)).toHaveLength(MAX_WARNED_PAIRS);
    expect(lines.at(-1)).toEqual({
      level: 'warn',
      msg: UNDECLARED_ERRORS_CAPPED_MESSAGE,
      fields: { limit: MAX_WARNED_PAIRS },
    });
  });

  it('logs a long code cut to a short name', () => {
    const logger = collectingLogger();
    undeclaredErrorWarning(logger)(proxy, new HttpError(502, 'X'.repeat(100_000), 'Upstream failed.'));
    const [line] = logger.at('warn');
    expect(String(line?.fields.code).length).toBeLessThanOrEqual(200);
  });
});
