import { defineConfig } from 'vitest/config';

// Browser tests: real Chromium against the built server (npm run test:e2e builds first). One file at
// a time: each starts its own server and browser, and two cores are better spent on one of each.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
