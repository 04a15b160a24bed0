// Shared by the vitest suites: fixture homes and proofs that nothing was written.
import { cpSync, mkdtempSync, readdirSync, readFileSync, lstatSync, rmSync } from 'node:fs'
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

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true })
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
