import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.{js,mjs,ts}'],
    // forks: a native crash takes down one worker, not the whole run
    pool: 'forks',
    // At least two files at once: most of a file's time is spent waiting on the processes it
    // starts (the CLI, Chromium, PostgreSQL, npm pack), and vitest's default on two cores is
    // one worker.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // the index's cache directory: a fresh temporary one per test file (never ~/.cache)
    setupFiles: ['__test__/cache-setup.mjs'],
    // a throw-away PostgreSQL for the team database's tests (when one of them runs)
    globalSetup: ['__test__/pg-setup.mjs'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
