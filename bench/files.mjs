// Which sessions touched a file, `file:` with a word, and the recap, measured against `rg -uuu
// -i -F -l` over the stores, in one run. Several addons can be compared in the same run
// (before/after a change): each is loaded in processes of its own, and every round times rg and
// then each addon's call in turn.
//   node bench/files.mjs <home> [name=addon.node ...]
// Without an addon named, the package's own (npm run build). The home is read in place. CACHE: a
// cache dir whose index is kept between runs (else a temporary one); the addons share it (one
// index format), built first by the first addon, whose index is then measured with and without
// the files' tables (the growth; GROWTH=0 leaves it out: a copy of the index is vacuumed). RUNS
// (default 5) rounds, medians in ms.
// Calls, each on a used client (warm: `watch: false`, every source stat'ed) and on a long-lived
// watching client (`watch: true`): `sessions.touched(<file>)` against `rg -l
// <its basename>`, `search('file:<dir>/* <word>')` (and the word alone) against `rg -l <word>`,
// and `sessions.recap` of the last days of the home (RECAP_DAYS, before its newest session). A home
// without edits (gen_home.py without --file-edits) is measured on the files its commands named;
// the files are those of the 2,000 newest sessions. CALLS=recap: the recap alone (a 10 GB home,
// whose index is built beforehand in CACHE: `amux index update` with that cache dir), with
// RECAP_BYTES=1 the size of its JSON too. RECAP_DAYS: the recaps' periods, in days before the
// newest session, comma-separated (default 7; e.g. 7,30).
import { execFileSync, fork } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { rgList, rgVersion } from './rg.mjs'

const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]
const ms = (x) => x.toFixed(1)
const STORES = ['.claude', '.codex', '.gemini', '.copilot', '.cursor', '.local/share/opencode', '.pi', '.omp', '.openclaw', '.hermes']

if (process.argv[2] === '--worker') worker()
else await driver()

// ---- one addon's client, its calls timed on request ----
function worker() {
  const { createClient } = createRequire(import.meta.url)('../index.js')
  const watch = process.env.BENCH_WATCH === '1'
  const client = createClient({ cacheDir: process.env.AGENT_MUX_CACHE_DIR, indexUpdates: 'wait', watch })
  const call = (m) => {
    if (m.op === 'touched') return client.sessions.touched(m.path, m.options ?? {})
    if (m.op === 'search') return client.sessions.search({ text: m.text, limit: 50 })
    if (m.op === 'recap') return client.sessions.recap({ since: new Date(m.since) })
    if (m.op === 'newest') return client.sessions.listAll({ limit: 1 })
    throw new Error(m.op)
  }
  const size = (out) => (Array.isArray(out) ? out.length : out.sessionCount)
  process.on('message', async (m) => {
    if (m.op === 'exit') process.exit(0)
    const t = performance.now()
    const out = await call(m)
    const took = performance.now() - t
    const touches = Array.isArray(out) ? out.reduce((n, s) => n + (s.touches?.length ?? 0), 0) : 0
    const extra = m.op === 'touched' && m.keep ? { out } : m.op === 'newest' ? { at: out[0].updatedAt.getTime() } : {}
    if (m.op === 'recap' && process.env.RECAP_BYTES === '1') extra.bytes = JSON.stringify(out).length
    process.send({ ms: took, n: size(out), touches, ...extra })
  })
  process.send({ ready: true })
}

function size(p) {
  const st = statSync(p)
  if (!st.isDirectory()) return st.size
  return readdirSync(p).reduce((n, e) => n + size(join(p, e)), 0)
}

// ---- the driver ----
async function driver() {
  const [home0, ...named] = process.argv.slice(2)
  if (!home0 || !existsSync(home0)) throw new Error('usage: node bench/files.mjs <home> [name=addon.node ...]')
  const home = resolve(home0)
  const runs = Number(process.env.RUNS ?? 5)
  const cache = process.env.CACHE ?? mkdtempSync(join(tmpdir(), 'amux-files-bench-'))
  const addons = named.length ? named.map((n) => n.split('=')) : [['this build', '']]
  const dirs = STORES.map((s) => join(home, s)).filter(existsSync)
  const rg = (needle) => () => rgList([needle, ...dirs])
  const timed = async (f) => {
    const t = performance.now()
    await f()
    return performance.now() - t
  }
  const env = (addon, watch) => ({
    ...process.env,
    HOME: home,
    AGENT_MUX_CACHE_DIR: cache,
    BENCH_WATCH: watch ? '1' : '0',
    ...(addon ? { NAPI_RS_NATIVE_LIBRARY_PATH: addon } : {}),
  })
  const start = async (name, addon, watch) => {
    const child = fork(fileURLToPath(import.meta.url), ['--worker'], { env: env(addon, watch) })
    const queue = []
    child.on('message', (m) => queue.shift()?.(m))
    const ask = (m) => new Promise((resolve) => (queue.push(resolve), m && child.send(m)))
    await ask() // ready
    return { name, ask, child }
  }
  console.log(`load average at the start: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  const workers = []
  for (const [name, addon] of addons) workers.push(await start(name, addon, false))

  // The index built by the first addon's first call; the files to ask for, from it.
  const t0 = performance.now()
  const recapOnly = process.env.CALLS === 'recap'
  // The files of the newest sessions (of a home of tens of thousands, all of them would be a
  // call of its own to measure).
  let every = recapOnly ? [] : (await workers[0].ask({ op: 'touched', path: '**', options: { action: 'edit', limit: 2000 }, keep: true })).out
  const built = (performance.now() - t0) / 1000
  const edits = recapOnly || every.length > 0
  if (!edits) every = (await workers[0].ask({ op: 'touched', path: '**', options: { limit: 2000 }, keep: true })).out
  const files = [...new Set(every.flatMap((s) => s.touches.map((t) => t.path)))].sort()
  const growth = process.env.GROWTH === '0' || recapOnly ? 'growth not measured' : indexGrowth(cache)

  const newest = (await workers[0].ask({ op: 'newest' })).at
  const recaps = (process.env.RECAP_DAYS ?? '7').split(',').map((days) => {
    const since = new Date(newest - Number(days) * 864e5).toISOString()
    return [`recap since ${since.slice(0, 10)} (${days} days)`, { op: 'recap', since }, null]
  })
  const picks = [files[0], files[Math.floor(files.length / 2)], files[files.length - 1]]
  const dir = picks[0]?.slice(0, picks[0].lastIndexOf('/'))
  const calls = recapOnly
    ? recaps
    : [
        ...picks.map((path) => [`touched ${path}`, { op: 'touched', path }, rg(basename(path))]),
        ...['kubernetes', 'cache'].flatMap((word) =>
          [word, `file:${dir}/* ${word}`].map((text) => [`search '${text}'`, { op: 'search', text }, rg(word)]),
        ),
        ...recaps,
      ]
  // Each client's first calls (the same answers from every addon are not checked here: the
  // tests do that).
  const found = {}
  for (const w of workers) for (const [name, m] of calls) found[`${w.name} ${name}`] = await w.ask(m)

  const rows = []
  for (const [name, m, grep] of calls) {
    const t = { rg: [], ...Object.fromEntries(workers.map((w) => [w.name, []])) }
    for (let i = 0; i < runs; i++) {
      if (grep) t.rg.push(await timed(grep))
      for (const w of workers) t[w.name].push((await w.ask(m)).ms)
    }
    const f = found[`${workers[0].name} ${name}`]
    const what = m.op === 'touched' ? `${f.n} sessions, ${f.touches} touches` : m.op === 'recap' ? `${f.n} sessions${f.bytes ? `, ${(f.bytes / 1e6).toFixed(2)} MB of JSON` : ''}` : `${f.n} results`
    rows.push([`${name} (${what})`, grep ? med(t.rg) : null, workers.map((w) => med(t[w.name]))])
  }
  for (const w of workers) w.child.send({ op: 'exit' })

  // The same calls on a long-lived watching client of each addon, in turn (rg's figures are
  // those above).
  const watching = []
  for (const [name, addon] of addons) watching.push(await start(name, addon, true))
  for (const w of watching) for (const [, m] of calls) await w.ask(m)
  for (const [i, [name, m]] of calls.entries()) {
    const t = Object.fromEntries(watching.map((w) => [w.name, []]))
    for (let k = 0; k < runs; k++) for (const w of watching) t[w.name].push((await w.ask(m)).ms)
    rows.push([`${name}, a watching client`, rows[i][1], watching.map((w) => med(t[w.name]))])
  }
  for (const w of watching) w.child.send({ op: 'exit' })

  console.log(`home ${home}: ${(size(home) / 1e9).toFixed(2)} GB; of the ${every.length} newest sessions with ${edits ? 'an edit' : 'a touch'}, ${files.length} files ${edits ? 'edited' : 'touched'}`)
  console.log(`machine: ${cpus().length} cores, ${cpus()[0].model}, node ${process.version}, ${rgVersion()}; rounds: ${runs}, medians in ms; each round: rg, then ${workers.map((w) => w.name).join(', ')}`)
  console.log(`index built in ${built.toFixed(1)} s by ${workers[0].name}: ${growth}`)
  const names = workers.map((w) => w.name)
  console.log(`| call | rg -l | ${names.join(' | ')} | ${names.map((n) => `${n} / rg`).join(' | ')} |`)
  console.log(`|---|---:|${names.map(() => '---:|').join('')}${names.map(() => '---:|').join('')}`)
  for (const [name, r, v] of rows) {
    const ratios = v.map((x) => (r ? (x / r).toFixed(3) : ''))
    console.log(`| ${name} | ${r ? ms(r) : ''} | ${v.map(ms).join(' | ')} | ${ratios.join(' | ')} |`)
  }
  console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  if (!process.env.CACHE) rmSync(cache, { recursive: true, force: true })
}

// The index with and without the files' tables (a copy, its tables dropped and vacuumed; the
// documents held for their touches only, Hermes', dropped too).
function indexGrowth(cache) {
  const sqlite = readdirSync(cache).find((f) => /^index-v\d+\.sqlite$/.test(f))
  const postings = readdirSync(cache).find((f) => f.endsWith('.postings'))
  if (!sqlite || !postings) return 'no index found'
  const work = mkdtempSync(join(tmpdir(), 'amux-files-growth-'))
  const py = (file, sql) => execFileSync('python3', ['-c', `import sqlite3; c = sqlite3.connect(${JSON.stringify(file)}); ${sql}; c.commit(); c.execute("VACUUM"); c.close()`])
  const without = join(work, 'without.sqlite')
  const vacuumed = join(work, 'vacuumed.sqlite')
  copyFileSync(join(cache, sqlite), without)
  copyFileSync(join(cache, sqlite), vacuumed)
  py(without, `[c.execute(f"DROP TABLE {t}") for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'touch%'").fetchall()]; c.execute("DELETE FROM doc WHERE agent = 'hermes'")`)
  py(vacuumed, 'pass')
  const p = size(join(cache, postings))
  const [a, b] = [size(vacuumed) + p, size(without) + p]
  rmSync(work, { recursive: true, force: true })
  return `${(a / 1e6).toFixed(1)} MB (vacuumed), ${(b / 1e6).toFixed(1)} MB without the files' tables: +${((a / b - 1) * 100).toFixed(1)}%`
}
