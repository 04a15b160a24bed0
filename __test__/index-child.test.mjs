// A process that exits soon after a search hands the index's work to a detached process of its
// own (index-child.js), which fills the index with no `amux index update`; `close()` waits for
// this process's writing instead, so a script may remove its home right after; no index or
// `indexChild: false`, no process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createClient } from '../index.mjs'
import { genHome, rejection, removeDir, repoRoot, withHome } from './helpers.mjs'

const run = promisify(execFile)
let gen
const made = []

beforeAll(() => {
  gen = mkdtempSync(join(tmpdir(), 'amux-gen-'))
  genHome(gen, ['--sessions', '40', '--seed', '5', '--scale', '1'])
})

afterAll(() => {
  for (const dir of [gen, ...made]) removeDir(dir)
})

/** A new home holding the generated sessions, with no index yet. */
function newHome() {
  const home = mkdtempSync(join(tmpdir(), 'amux-home-'))
  cpSync(gen, home, { recursive: true })
  made.push(home)
  return home
}

/**
 * Run `node -e` with HOME at `home`: one client made with `options`, one search, then `then`
 * (JS, with `client` in scope), then `process.exit()` at once, as a short script ends. Returns
 * the arguments of every process the library started.
 */
async function script(home, options, then = '', env = {}) {
  const log = join(home, 'spawned.log')
  const code = `
    const cp = require('node:child_process')
    const fs = require('node:fs')
    const spawn = cp.spawn
    cp.spawn = (file, args, opts) => {
      fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n')
      return spawn(file, args, opts)
    }
    const { createClient } = require(${JSON.stringify(join(repoRoot, 'index.js'))})
    const client = createClient(${JSON.stringify(options)})
    client.sessions.search({ text: 'test' }).then(async (hits) => {
      if (hits.length === 0) throw new Error('no hits')
      ${then}
      process.exit(0)
    })
  `
  const childEnv = { ...process.env, HOME: home, ...env }
  delete childEnv.AGENT_MUX_CACHE_DIR // the home's own cache, ~/.cache/agent-mux
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k]
  await run(process.execPath, ['-e', code], { env: childEnv })
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []
}

/** The index of `home`'s own cache as another client sees it, HOME at `home`; it writes nothing. */
function status(home) {
  return withHome(home, () => createClient({ cacheDir: join(home, '.cache', 'agent-mux'), indexChild: false }).index.status())
}

describe('a process that exits soon after a search', () => {
  it('leaves the index filling: a detached process of its own completes it', async () => {
    const home = newHome()
    const spawned = await script(home, {})
    expect(spawned).toHaveLength(1)
    expect(spawned[0][0]).toBe(join(repoRoot, 'index-child.js'))
    // The search answered before the index took in the home: it is incomplete as it exits...
    const dir = join(home, '.cache', 'agent-mux')
    expect(spawned[0][2]).toBe(dir)
    // ...and completed by the detached process, with no `amux index update`.
    const until = Date.now() + 45_000
    let now = await status(home)
    while (now.stale > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200))
      now = await status(home)
    }
    expect(now).toMatchObject({ dir, stale: 0 })
    expect(now.sessions).toBeGreaterThan(0)
  })

  it('with the same options and variables as the client: sessionDirs, cacheDir, an override', async () => {
    const home = newHome()
    const elsewhere = mkdtempSync(join(tmpdir(), 'amux-stores-'))
    made.push(elsewhere)
    cpSync(join(home, '.claude'), join(elsewhere, 'claude'), { recursive: true })
    cpSync(join(home, '.codex'), join(elsewhere, 'codex'), { recursive: true })
    rmSync(join(home, '.claude'), { recursive: true })
    rmSync(join(home, '.codex'), { recursive: true })
    const cacheDir = join(elsewhere, 'cache')
    const options = { cacheDir, sessionDirs: { claude: join(elsewhere, 'claude') } }
    const spawned = await script(home, options, '', { CODEX_HOME: join(elsewhere, 'codex') })
    expect(spawned).toHaveLength(1)
    const reader = createClient({ ...options, indexChild: false })
    const saved = [process.env.HOME, process.env.CODEX_HOME]
    process.env.HOME = home
    process.env.CODEX_HOME = join(elsewhere, 'codex')
    try {
      const until = Date.now() + 45_000
      let now = await reader.index.status()
      while (now.stale > 0 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 200))
        now = await reader.index.status()
      }
      expect(now).toMatchObject({ dir: cacheDir, stale: 0 })
      // Claude's and Codex's sessions are in it: read from where the client was told.
      const claude = (await reader.sessions.list('claude')).length
      const codex = (await reader.sessions.list('codex')).length
      expect(claude).toBeGreaterThan(0)
      expect(codex).toBeGreaterThan(0)
      expect(now.sessions).toBeGreaterThanOrEqual(claude + codex)
    } finally {
      process.env.HOME = saved[0]
      if (saved[1] === undefined) delete process.env.CODEX_HOME
      else process.env.CODEX_HOME = saved[1]
    }
  })

  it('close() waits for its writing: the index is complete and the home can be removed at once', async () => {
    const home = newHome()
    const log = join(tmpdir(), `amux-spawned-${process.pid}-${Date.now()}.log`)
    made.push(log)
    const spawned = await script(
      home,
      {},
      `
      await client.close()
      const other = require(${JSON.stringify(join(repoRoot, 'index.js'))}).createClient({ indexChild: false })
      const { stale } = await other.index.status()
      if (stale !== 0) throw new Error('stale after close: ' + stale)
      const closed = await client.index.status().catch((e) => e)
      fs.writeFileSync(${JSON.stringify(log)}, JSON.stringify([closed.name, closed.code]))
      fs.rmSync(process.env.HOME, { recursive: true })
      await client.close()
      `,
    )
    expect(JSON.parse(readFileSync(log, 'utf8'))).toEqual(['AgentMuxError', 'INVALID_STATE_TRANSITION'])
    expect(existsSync(home)).toBe(false)
    // A closed client hands nothing on.
    expect(spawned).toEqual([])
  })

  it('in this process too: idle() and close() wait, and calls after close() reject', async () => {
    const home = newHome()
    const cacheDir = join(home, 'cache')
    const saved = process.env.HOME
    process.env.HOME = home
    try {
      const client = createClient({ cacheDir })
      expect((await client.sessions.search({ text: 'test' })).length).toBeGreaterThan(0)
      await client.index.idle()
      expect(await createClient({ cacheDir, indexChild: false }).index.status()).toMatchObject({ stale: 0 })
      expect((await client.sessions.search({ text: 'test' })).length).toBeGreaterThan(0)
      await client.close()
      const err = await rejection(client.sessions.list('claude'))
      expect(err).toMatchObject({ name: 'AgentMuxError', code: 'INVALID_STATE_TRANSITION' })
      expect((await rejection(client.index.idle())).code).toBe('INVALID_STATE_TRANSITION')
    } finally {
      process.env.HOME = saved
    }
    rmSync(home, { recursive: true })
  })

  it('no index, no process: cacheDir: false and AGENT_MUX_NO_CACHE=1', async () => {
    const home = newHome()
    expect(await script(home, { cacheDir: false })).toEqual([])
    const cacheDir = join(home, 'off')
    expect(await script(home, {}, '', { AGENT_MUX_CACHE_DIR: cacheDir, AGENT_MUX_NO_CACHE: '1' })).toEqual([])
    expect(existsSync(cacheDir)).toBe(false)
    expect(existsSync(join(home, '.cache', 'agent-mux'))).toBe(false)
  })

  it('indexChild: false starts no process, and leaves the index as the search found it', async () => {
    const home = newHome()
    expect(await script(home, { indexChild: false })).toEqual([])
    expect((await status(home)).stale).toBeGreaterThan(0)
    expect(() => createClient({ indexChild: 'no' })).toThrow(/indexChild/)
  })
})
