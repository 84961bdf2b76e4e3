import { defineConfig } from 'vitest/config';

// `svckit` resolves to this checkout's TypeScript sources through the `svckit-source` export condition.
export default defineConfig({
  resolve: { conditions: ['svckit-source', 'module', 'node', 'development|production'] },
  ssr: { resolve: { conditions: ['svckit-source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
