// Every suite runs with the persistent index on (issue #16), in a private temporary cache
// directory: the tests exercise the index wherever they call the API or the CLI (which inherits
// process.env), and never read or write the user's own cache.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { createClient } from '../index.mjs'
import { removeDir } from './helpers.mjs'

const dir = mkdtempSync(join(tmpdir(), 'amux-cache-'))
process.env.AGENT_MUX_CACHE_DIR = dir
delete process.env.AGENT_MUX_NO_CACHE
// A thread of this process may still be writing there: idle() waits for it.
afterAll(async () => {
  await createClient({ cacheDir: dir, indexChild: false }).index.idle()
  removeDir(dir)
})
