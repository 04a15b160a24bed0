// Every suite runs with the persistent index on (issue #16), in a private temporary cache
// directory: the tests exercise the index wherever they call the API or the CLI (which inherits
// process.env), and never read or write the user's own cache.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { removeDirOnceWritten } from './helpers.mjs'

const dir = mkdtempSync(join(tmpdir(), 'amux-cache-'))
process.env.AGENT_MUX_CACHE_DIR = dir
delete process.env.AGENT_MUX_NO_CACHE
// A thread of this process, or a detached `amux index update`, may still be writing there.
afterAll(() => removeDirOnceWritten(dir))
