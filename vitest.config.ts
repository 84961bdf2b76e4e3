import { defineConfig } from 'vitest/config';

/**
 * Files that change process-wide state (module mocks, process.env, OpenTelemetry or prom-client globals, fake
 * timers) run in a fresh module graph of their own, like every file of the process project.
 */
const NEEDS_ISOLATION = [
  'test/runtime/auth-tokens.test.ts',
  'test/runtime/serve.test.ts',
  'test/runtime/tracing-default-exporter.test.ts',
  'test/runtime/tracing-otel.test.ts',
  'test/runtime/metrics-registry.test.ts',
  'test/http/edge-metrics.test.ts',
  'test/generator/client.test.ts',
  'test/mcp/defaults.test.ts',
  'test/mcp/client/stdio.test.ts',
];

// Two workers (vitest's default on two cores is one). Most files only import the runtime and hold servers
// in-process: they share one module graph per worker (isolate: false), which saves the transform and import
// of the runtime for each file. Files that spawn processes (CLI, end-to-end, package) or touch globals keep
// a fresh worker per file. See "Test budget" in docs/design.md.
//
// `svckit` resolves to this checkout's TypeScript sources through the `svckit-source` export condition.
export default defineConfig({
  resolve: { conditions: ['svckit-source', 'module', 'node', 'development|production'] },
  ssr: { resolve: { conditions: ['svckit-source', 'module', 'node', 'development|production'] } },
  test: {
    // With two workers on two cores a CPU-bound test (PGlite start-up, fuzzing) gets about half a core: the
    // limits catch a hang, not a slow machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: [
            'test/{spec,generator,runtime,http,mcp,mail,data,service,tenancy,bench,lint}/**/*.test.ts',
          ],
          exclude: NEEDS_ISOLATION,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/{cli,e2e,package}/**/*.test.ts', ...NEEDS_ISOLATION],
        },
      },
    ],
  },
});
