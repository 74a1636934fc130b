import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share nothing but PostgreSQL, where each file gets its own database; two cores.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
