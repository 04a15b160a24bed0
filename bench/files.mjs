// Which sessions touched a file, measured against `rg -l <basename>` over the stores, in one run.
//   node bench/files.mjs <home> [--runs 5]
// <home>: a generated tool-heavy home (gen_home.py --file-edits). With the index in a fresh cache
// directory: the index is built once (its size with and without the files' tables: the growth),
// then, warm, each case's median over --runs: `sessions.touched(<one file>)` against `rg -l
// <its basename>` over the agents' stores, `file:<glob> <word>` (and the word alone) against `rg
// -l <word>`, and `sessions.recap` of the last 7 days of the home (those before its newest
// session). A home without --file-edits is measured on the files its commands named.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, basename } from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const home = resolve(args.find((a) => !a.startsWith('--')) ?? '')
const runs = Number(args[args.indexOf('--runs') + 1]) || 5
if (!existsSync(home)) {
  console.error('usage: node bench/files.mjs <home> [--runs 5]')
  process.exit(2)
}
process.env.HOME = home
const cache = mkdtempSync(join(tmpdir(), 'amux-files-bench-'))
const { createClient } = require('../index.js')
const client = createClient({ cacheDir: cache })
const STORES = ['.claude', '.codex', '.gemini', '.copilot', '.cursor', '.local/share/opencode', '.pi', '.omp', '.openclaw', '.hermes']
  .map((s) => join(home, s))
  .filter(existsSync)

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]
async function timed(fn) {
  const out = []
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint()
    await fn()
    out.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  return median(out)
}
const rg = (needle) => timed(() => spawnSync('rg', ['-l', '-F', needle, ...STORES], { stdio: 'ignore' }))

function size(p) {
  const st = statSync(p)
  if (!st.isDirectory()) return st.size
  return readdirSync(p).reduce((n, e) => n + size(join(p, e)), 0)
}

const t0 = process.hrtime.bigint()
let every = await client.sessions.touched('**', { action: 'edit', limit: 100000 })
const build = Number(process.hrtime.bigint() - t0) / 1e9
// A home generated without --file-edits: the files its commands named.
const edits = every.length > 0
if (!edits) every = await client.sessions.touched('**', { limit: 100000 })
const files = [...new Set(every.flatMap((s) => s.touches.map((t) => t.path)))].sort()
await client.close()

// The index with and without the files' tables (a copy, its tables dropped and vacuumed).
const sqlite = readdirSync(cache).find((f) => /^index-v\d+\.sqlite$/.test(f))
const postings = readdirSync(cache).find((f) => f.endsWith('.postings'))
const whole = size(join(cache, sqlite)) + size(join(cache, postings))
const copy = join(cache, 'without.sqlite')
copyFileSync(join(cache, sqlite), copy)
// Every table of touches (whatever the format names them), and the documents held for their
// touches only (Hermes', searched by its own engine).
execFileSync('python3', ['-c', `import sqlite3; c = sqlite3.connect(${JSON.stringify(copy)}); [c.execute(f"DROP TABLE {t}") for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'touch%'").fetchall()]; c.execute("DELETE FROM doc WHERE agent = 'hermes'"); c.commit(); c.execute("VACUUM"); c.close()`])
const vacuumed = join(cache, 'vacuumed.sqlite')
copyFileSync(join(cache, sqlite), vacuumed)
execFileSync('python3', ['-c', `import sqlite3; c = sqlite3.connect(${JSON.stringify(vacuumed)}); c.execute("VACUUM"); c.close()`])
const withTables = size(vacuumed) + size(join(cache, postings))
const without = size(copy) + size(join(cache, postings))

const warm = createClient({ cacheDir: cache })
await warm.sessions.touched(files[0])
const picks = [files[0], files[Math.floor(files.length / 2)], files[files.length - 1]]
const rows = []
for (const f of picks) {
  const found = await warm.sessions.touched(f)
  const ms = await timed(() => warm.sessions.touched(f))
  const base = await rg(basename(f))
  rows.push({ case: `touched ${f}`, sessions: found.length, ms, rg: base })
}
const dir = picks[0].slice(0, picks[0].lastIndexOf('/'))
for (const word of ['kubernetes', 'cache']) {
  const base = await rg(word)
  // The word alone, then within the files' sessions.
  for (const text of [word, `file:${dir}/* ${word}`]) {
    const found = await warm.sessions.search({ text, limit: 50 })
    const ms = await timed(() => warm.sessions.search({ text, limit: 50 }))
    rows.push({ case: `search '${text}'`, sessions: found.length, ms, rg: base })
  }
}
// The recap of the last 7 days of the home (its newest session's), warm.
const [newest] = await warm.sessions.listAll({ limit: 1 })
const since = new Date(newest.updatedAt.getTime() - 7 * 864e5)
const recap = await warm.sessions.recap({ since })
const recapMs = await timed(() => warm.sessions.recap({ since }))
await warm.close()

const mb = (n) => (n / 1e6).toFixed(1)
console.log(`home ${home}: ${mb(size(home))} MB in the stores, ${every.length} sessions with ${edits ? 'an edit' : 'a touch'}, ${files.length} files ${edits ? 'edited' : 'touched'}`)
console.log(`index built in ${build.toFixed(1)} s: ${mb(withTables)} MB (vacuumed), ${mb(without)} MB without the files' tables: +${((withTables / without - 1) * 100).toFixed(1)}%`)
console.log('| case | sessions | amux ms | rg -l ms | ratio |')
console.log('|---|---|---|---|---|')
for (const r of rows) console.log(`| ${r.case} | ${r.sessions} | ${r.ms.toFixed(1)} | ${r.rg.toFixed(1)} | ${(r.ms / r.rg).toFixed(3)} |`)
console.log(`recap since ${since.toISOString()}: ${recap.sessionCount} sessions in ${recap.projects.length} projects, ${recap.projects.reduce((n, p) => n + p.files.length, 0)} files: ${recapMs.toFixed(1)} ms warm (median of ${runs})`)
rmSync(cache, { recursive: true, force: true })
