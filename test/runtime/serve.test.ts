// serve() prints where the app listens, and outside production (NODE_ENV exactly development or test) one
// line saying so and how to run in production; in production it prints no such line.
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, route, serve } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

const saved = process.env.NODE_ENV;

afterEach(() => {
  if (saved === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = saved;
});

async function startupLines(nodeEnv: string | undefined): Promise<string[]> {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
  const app = createApp({ name: 'lines', version: '1.0.0' });
  app.register(fastifyPlugin({ routes: [route({ method: 'GET', url: '/', handler: () => 'ok' })] }));
  const lines: string[] = [];
  const served = await serve(app, {
    port: 0,
    host: '127.0.0.1',
    handleSignals: false,
    log: (line) => lines.push(line),
  });
  await served.close();
  return lines;
}

describe('serve() start-up lines', () => {
  it.each(['development', 'test'])(
    'says once that NODE_ENV=%s is not production and how to run in production',
    async (mode) => {
      const lines = await startupLines(mode);
      expect(lines[0]).toMatch(/^lines 1\.0\.0 listening on http:\/\/127\.0\.0\.1:\d+ \(fastify\)$/);
      const notices = lines.filter((line) => line.includes('not production'));
      expect(notices).toEqual([
        `  mode      NODE_ENV=${mode}, not production: mails and their links go to this log, cookies lack Secure, ` +
          'the signing secret is kept under .svc/. In production: NODE_ENV=production and SVC_SECRET (32+ characters).',
      ]);
    },
  );

  it.each([undefined, 'production', 'Development'])(
    'prints no such line when NODE_ENV is %s (production)',
    async (mode) => {
      const lines = await startupLines(mode);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.some((line) => line.includes('not production'))).toBe(false);
    },
  );
});
