import { defineConfig } from 'vitest/config';

// Each test file runs in its own process (forks): chDB allows one data directory per
// process, and every integration test file uses its own Postgres database, NATS name
// prefix and ClickHouse database, so files run in parallel without seeing each other.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.data/**'],
    globalSetup: ['test/services-check.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
