// Shared by the vitest suites: fixture homes and proofs that nothing was written.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, lstatSync, rmSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))
export const demoHome = join(repoRoot, 'examples', 'demo-home')

/** This system as napi-rs names binaries and platform packages: linux-x64-gnu, win32-arm64-msvc, darwin-x64. */
export function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

/** A private copy of the demo home (tests may chmod or add files without touching the repo). */
export function copyDemoHome() {
  const dir = mkdtempSync(join(tmpdir(), 'amux-home-'))
  cpSync(demoHome, dir, { recursive: true })
  return dir
}

// A cache dir may still be written by the detached process a CLI or MCP call handed the index's
// work to (`index-child.js`, whose arguments name the cache dir): on Linux, wait for those that
// write under `dir` to end (a minute at most), then remove it, retrying as other systems need.
export function removeDir(dir) {
  const until = Date.now() + 60_000
  while (indexChildrenUnder(dir) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
  rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
}

function indexChildrenUnder(dir) {
  if (process.platform !== 'linux') return false
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let args
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    } catch {
      continue
    }
    if (args.some((a) => a.endsWith('index-child.js')) && args.some((a) => a.startsWith(dir))) return true
  }
  return false
}

/** Path → sha256 of every file, and every directory, under `root` (symlinks by their target text). */
export function snapshot(root) {
  const out = new Map()
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      const st = lstatSync(p)
      if (st.isDirectory()) {
        out.set(p, 'dir')
        walk(p)
      } else if (st.isFile()) {
        out.set(p, createHash('sha256').update(readFileSync(p)).digest('hex') + ':' + st.mode)
      } else {
        out.set(p, 'other')
      }
    }
  }
  walk(root)
  return out
}

/** Run `fn` with process.env.HOME pointed at `home`, restoring it afterwards. */
export async function withHome(home, fn) {
  const saved = process.env.HOME
  process.env.HOME = home
  try {
    return await fn()
  } finally {
    process.env.HOME = saved
  }
}

/** The error `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise) {
  try {
    await promise
  } catch (e) {
    return e
  }
  throw new Error('expected a rejection')
}

/** 'python3' when it runs and has sqlite3 (fixture writers need both), else null. */
export const python = (() => {
  try {
    execFileSync('python3', ['-c', 'import sqlite3'])
    return 'python3'
  } catch {
    return null
  }
})()

/** `python`, or a failure that says why: Python 3 is a prerequisite of the test suite (docs/development.md). */
export function requirePython() {
  if (!python) throw new Error('python3 with its sqlite3 module is needed to write test fixtures (a prerequisite, see docs/development.md)')
  return python
}

/** Run scripts/gen_home.py (sessions of the ten agents in their on-disk layouts) into `out`. */
export function genHome(out, args) {
  execFileSync(requirePython(), [join(repoRoot, 'scripts', 'gen_home.py'), '--out', out, ...args], { stdio: 'ignore' })
}

/**
 * `../shared/<rel>` beside the checkout (the real captures, the agents' DDL), or null where it is
 * absent: suites that need it are skipped then (`describe.skipIf`). With
 * AGENT_MUX_REQUIRE_FIXTURES=1 (CI) an absent one is an error instead, so nothing is skipped.
 */
export function shared(rel) {
  const p = join(repoRoot, '..', 'shared', rel)
  if (existsSync(p)) return p
  if (process.env.AGENT_MUX_REQUIRE_FIXTURES === '1') throw new Error(`${p} is absent and AGENT_MUX_REQUIRE_FIXTURES=1`)
  console.warn(`skipping the tests that need ${p}: it is absent`)
  return null
}

/**
 * Turns as the spec counts them: a user message answered by at least one assistant message. A
 * subagent's transcript (messages marked `subagent`) is part of its parent's turn, not new turns.
 */
export function countTurns(messages) {
  let turns = 0
  let waiting = false
  for (const m of messages) {
    if (m.subagent !== undefined) continue
    if (m.role === 'user') waiting = true
    else if (m.role === 'assistant' && waiting) {
      turns++
      waiting = false
    }
  }
  return turns
}

/**
 * The index's SQLite file (`kind` 'sqlite') or postings folder ('postings') in `cacheDir`,
 * whatever the index's format number in its name; null while there is none.
 */
export function indexPath(cacheDir, kind) {
  let names
  try {
    names = readdirSync(cacheDir)
  } catch {
    return null
  }
  const name = names.find((n) => new RegExp(`^index-v\\d+\\.${kind}$`).test(n))
  return name ? join(cacheDir, name) : null
}
