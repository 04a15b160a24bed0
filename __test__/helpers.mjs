// Shared by the vitest suites: fixture homes and proofs that nothing was written.
import { cpSync, mkdtempSync, readdirSync, readFileSync, lstatSync, rmSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))
export const demoHome = join(repoRoot, 'examples', 'demo-home')

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
