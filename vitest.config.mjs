import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.{js,mjs,ts}'],
    // forks: a native crash takes down one worker, not the whole run
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
