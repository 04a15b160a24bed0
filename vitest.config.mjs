import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.{js,mjs,ts}'],
    // forks: a native crash takes down one worker, not the whole run
    pool: 'forks',
    // the index's cache directory: a fresh temporary one per test file (never ~/.cache)
    setupFiles: ['__test__/cache-setup.mjs'],
    // a throw-away PostgreSQL for the team database's tests (when one of them runs)
    globalSetup: ['__test__/pg-setup.mjs'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
