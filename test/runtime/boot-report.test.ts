// A refused start, as the person starting the service reads it: the code, the message, the option, file or
// directory at fault and what to do about it (the catalog's hint), and no stack unless SVC_DEBUG=1. A bug
// (anything that is not a refusal) keeps its stack, as node prints an uncaught error.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { createApp, resolveSvcConfig, serve, svcErrors, unknownOption, invalidOption } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { checkSchema } from 'svckit/stores';
import { formatBootFailure, isBootRefusal, reportBootFailure } from '../../runtime/app/boot-report.js';
import { catalog } from '../../generated/modules/errors.js';

/** A stack frame line as node prints it. */
const STACK_LINE = /^\s+at /m;

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function rejected(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('formatBootFailure', () => {
  test('CONFIG_INVALID with one problem: the option, where it came from and the hint, no stack', () => {
    const error = caught(() =>
      resolveSvcConfig(
        {
          name: 'demo',
          version: '1.0.0',
          source: 'svc.config.yaml',
          config: { server: { port: { $template: [{ env: 'PORT', default: '3000' }] } } },
        },
        { PORT: 'eighty' },
      ),
    );
    const report = formatBootFailure(error);
    expect(report).toMatch(/^Refused to start \(CONFIG_INVALID\): server\.port: .*"eighty"/);
    expect(report).toContain('(from ${PORT})');
    expect(report).toContain(`hint: ${catalog.CONFIG_INVALID.hint}`);
    expect(report).not.toMatch(STACK_LINE);
    expect(report).not.toContain('details');
    expect(report.endsWith('\n')).toBe(true);
  });

  test('CONFIG_INVALID with several problems lists each on its own line', () => {
    const error = caught(() =>
      resolveSvcConfig(
        {
          name: 'demo',
          version: '1.0.0',
          source: 'svc.config.yaml',
          config: { server: { port: 'x', adapter: 'koa' } },
        },
        {},
      ),
    );
    const lines = formatBootFailure(error).split('\n');
    expect(lines[0]).toBe(`Refused to start (CONFIG_INVALID): ${catalog.CONFIG_INVALID.message}`);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}server\.adapter: .*koa.* \(from svc\.config\.yaml\)$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}server\.port: .* \(from svc\.config\.yaml\)$/));
  });

  test('AUTH_WEAK_SECRET carries the catalog hint: how to make a secret', () => {
    const report = formatBootFailure(svcErrors.AUTH_WEAK_SECRET({ details: { minLength: 32, length: 5 } }));
    expect(report).toContain('Refused to start (AUTH_WEAK_SECRET): Signing secret must be at least 32');
    expect(report).toContain('hint: set SVC_SECRET to 32+ random characters, e.g. `openssl rand -base64 32`');
    expect(report).not.toContain('minLength');
  });

  test('a hint given where the error is thrown replaces the catalog one', () => {
    const error = svcErrors.STORE_LOCKED({ hint: 'stop the nightly import first' });
    expect(formatBootFailure(error)).toContain('hint: stop the nightly import first');
    expect(formatBootFailure(svcErrors.STORE_LOCKED())).toContain(`hint: ${catalog.STORE_LOCKED.hint}`);
  });

  test('STORE_LOCKED names the directory, relative to cwd', () => {
    const error = svcErrors.STORE_LOCKED({
      message: 'The embedded database in /srv/app/.svc/data is in use by pid 42.',
      details: { dir: '/srv/app/.svc/data' },
    });
    const report = formatBootFailure(error, { cwd: '/srv/app' });
    expect(report).toMatch(
      /^Refused to start \(STORE_LOCKED\): The embedded database in \.svc\/data is in use/,
    );
    // Named in the message already: no second line for it.
    expect(report).not.toContain('directory:');
    const bare = formatBootFailure(svcErrors.STORE_LOCKED({ details: { dir: '/srv/app/.svc/data' } }), {
      cwd: '/srv/app',
    });
    expect(bare).toContain('  directory: .svc/data\n');
  });

  test('STORE_SCHEMA_MISMATCH from a database never migrated says to run svc db:migrate', async () => {
    const error = await rejected(() =>
      checkSchema({
        kind: 'postgres',
        query: () => Promise.reject(Object.assign(new Error('no table'), { code: '42P01' })),
      } as unknown as Parameters<typeof checkSchema>[0]),
    );
    const report = formatBootFailure(error);
    expect(report).toMatch(/^Refused to start \(STORE_SCHEMA_MISMATCH\): .*run svc db:migrate/);
    expect(report).toContain('hint: run svc db:migrate');
  });

  test("an OptionError names the option and its owner and carries its code's hint", () => {
    const unknown = formatBootFailure(unknownOption('securityPlugin()', 'rateLimt', ['rateLimit', 'cors']));
    expect(unknown).toContain(
      'Refused to start (OPTION_UNKNOWN): securityPlugin(): unknown option "rateLimt" (did you mean "rateLimit"?)',
    );
    expect(unknown).toContain(`hint: ${catalog.OPTION_UNKNOWN.hint}`);
    const invalid = formatBootFailure(invalidOption('serve()', 'port', 'a whole number'));
    expect(invalid).toContain('Refused to start (OPTION_INVALID): serve(): port must be a whole number.');
    expect(invalid).not.toMatch(STACK_LINE);
  });

  test('a port in use (serve() on a taken port) says which and how to pick another', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    const app = createApp({ name: 'demo', version: '1.0.0' });
    app.register(fastifyPlugin({ routes: [] }));
    try {
      const error = await rejected(() =>
        serve(app, { port, host: '127.0.0.1', handleSignals: false, log: () => {} }),
      );
      const report = formatBootFailure(error);
      expect(report).toContain(`Refused to start (EADDRINUSE): port ${port} on 127.0.0.1 is already in use`);
      expect(report).toContain('hint: stop the process listening there, or set PORT to another port');
      expect(report).not.toMatch(STACK_LINE);
    } finally {
      await app.close();
      taken.close();
    }
  });

  test('debug adds the stack and the cause', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const error = svcErrors.STORE_UNAVAILABLE({ message: 'PostgreSQL did not answer.', cause });
    expect(formatBootFailure(error)).not.toMatch(STACK_LINE);
    expect(formatBootFailure(error)).toContain('(SVC_DEBUG=1 shows the stack)');
    const debug = formatBootFailure(error, { debug: true });
    expect(debug).toMatch(/^Refused to start \(STORE_UNAVAILABLE\): PostgreSQL did not answer\./);
    expect(debug).toMatch(STACK_LINE);
    expect(debug).toContain('ECONNREFUSED 127.0.0.1:5432');
  });

  test('anything else is a bug: shown with its stack, as node shows an uncaught error', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'port')");
    expect(isBootRefusal(bug)).toBe(false);
    const report = formatBootFailure(bug);
    expect(report).not.toContain('Refused to start');
    expect(report).toContain("TypeError: Cannot read properties of undefined (reading 'port')");
    expect(report).toMatch(STACK_LINE);
    expect(formatBootFailure('a thrown string')).toBe("'a thrown string'\n");
  });

  test('refuses an option it does not take', () => {
    expect(() => formatBootFailure(new Error('x'), { debgu: true } as never)).toThrow(
      /unknown option "debgu"/,
    );
  });
});

describe('reportBootFailure', () => {
  test('writes the report and returns exit code 1; SVC_DEBUG=1 turns on the stack', () => {
    const error = svcErrors.AUTH_WEAK_SECRET();
    let written = '';
    const write = (text: string) => {
      written += text;
    };
    expect(reportBootFailure(error, { env: {}, write, cwd: '/' })).toBe(1);
    expect(written).toBe(formatBootFailure(error));
    written = '';
    expect(reportBootFailure(error, { env: { SVC_DEBUG: '1' }, write })).toBe(1);
    expect(written).toMatch(STACK_LINE);
  });
});
