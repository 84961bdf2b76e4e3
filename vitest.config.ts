import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that change process-wide state (module mocks, process.env, OpenTelemetry or prom-client globals, fake
 * timers) run in a fresh module graph of their own, like every end-to-end file.
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

/**
 * The order the projects start in: the ones holding the longest files (whole apps installed, built, type-checked
 * and served in child processes) first, so that the many short in-process files fill the end of the run and
 * no long file is left running alone on one core while the other idles.
 */
const PROJECT_ORDER = ['isolated', 'processes', 'in-process'];

/** Within a project, vitest's own order: failed first, then longest first by the last run, else largest first. */
class LongestProjectsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => PROJECT_ORDER.indexOf(file.project.name);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// Two workers (vitest's default on two cores is one). Most files only import the runtime and hold servers
// in-process: they share one module graph per worker (isolate: false), which saves the transform and import
// of the runtime for each file. The CLI, package and browser files spawn processes (Chromium for the browser
// ones) but change nothing process-wide either (a command run in-process takes its environment as an
// argument): they share a graph of their own. End-to-end files, and files that touch globals, keep a fresh
// worker per file. See "Test budget" in docs/design.md.
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
    sequence: { sequencer: LongestProjectsFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: [
            'test/{spec,generator,runtime,http,mcp,mail,data,service,tenancy,bench,lint,make}/**/*.test.ts',
          ],
          exclude: NEEDS_ISOLATION,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'processes', include: ['test/{cli,package,browser}/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/e2e/**/*.test.ts', ...NEEDS_ISOLATION],
        },
      },
    ],
  },
});
