// A long-lived client with and without the watcher (`createClient({ watch })`), warm calls side by
// side with `rg -uuu -i -F -l` over the same stores, in one process and one run:
//   node bench/watch.mjs <home> [rare word] [word in every session]
// The home is read in place except for one Claude session, to which the "after one appended
// message" figure appends lines (a copy of its last line each time). RUNS (default 7) rounds;
// in each round every call is timed once in turn (rg, without, with), and the medians reported.
// Needs a release addon (npm run build) and ripgrep. The index goes to a fresh temporary cache
// dir, built before the rounds; both clients share it and wait for it (`indexUpdates: 'wait'`).
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const [home, rare = 'kubeadm', every = 'user'] = process.argv.slice(2)
const runs = Number(process.env.RUNS ?? 7)
const cache = mkdtempSync(join(tmpdir(), 'amux-watch-bench-'))
process.env.HOME = home
process.env.AGENT_MUX_CACHE_DIR = cache
const { createClient } = createRequire(import.meta.url)('../index.js')

const dirs = ['.claude', '.codex', '.gemini', '.copilot', '.pi', '.omp'].map((d) => join(home, d)).filter(existsSync)
const rg = (word) => () => spawnSync('rg', ['-uuu', '-i', '-F', '-l', word, ...dirs], { stdio: 'ignore' })
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]
const ms = (x) => x.toFixed(1)
const rss = () => process.memoryUsage().rss / 1e6

async function time(f) {
  const t = performance.now()
  await f()
  return performance.now() - t
}

const options = { cacheDir: cache, indexUpdates: 'wait' }
const plain = createClient({ ...options, watch: false })
const t0 = performance.now()
await plain.index.update()
const built = performance.now() - t0
const before = rss()
const watching = createClient({ ...options, watch: true })

const search = (c, text) => () => c.sessions.search({ text, limit: 50 })
const list = (c) => () => c.sessions.list('claude', { limit: 1000000 })
const shapes = [
  [`rare word (${rare})`, (c) => search(c, rare), rg(rare)],
  [`a word in every session (${every})`, (c) => search(c, every), rg(every)],
  ["list('claude')", (c) => list(c), rg(rare)],
]
// Each client's first call (the watcher sets up its watches and lists every store once).
for (const [, call] of shapes) {
  await call(plain)()
  await call(watching)()
}
const setUp = rss()

const rows = []
for (const [name, call, grep] of shapes) {
  const t = { rg: [], without: [], with: [] }
  for (let i = 0; i < runs; i++) {
    t.rg.push(await time(grep))
    t.without.push(await time(call(plain)))
    t.with.push(await time(call(watching)))
  }
  rows.push([name, med(t.rg), med(t.without), med(t.with)])
}

// One message appended to one Claude session between two warm calls of each client.
const claude = join(home, '.claude/projects')
const project = readdirSync(claude).find((d) => statSync(join(claude, d)).isDirectory())
const file = join(claude, project, readdirSync(join(claude, project)).find((f) => f.endsWith('.jsonl')))
const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
const append = { rg: [], without: [], with: [], withWarm: [], withoutWarm: [] }
for (let i = 0; i < runs; i++) {
  for (const [c, warm, after] of [[plain, 'withoutWarm', 'without'], [watching, 'withWarm', 'with']]) {
    append[warm].push(await time(search(c, rare)))
    appendFileSync(file, lines[lines.length - 1] + '\n')
    append[after].push(await time(search(c, rare)))
  }
  append.rg.push(await time(rg(rare)))
}
rows.push([
  `rare word after one appended message (warm before: ${ms(med(append.withoutWarm))} / ${ms(med(append.withWarm))})`,
  med(append.rg),
  med(append.without),
  med(append.with),
])

const status = await watching.index.status()
const sources = (await plain.index.status()).sources
const files = Number(execFileSync('sh', ['-c', `find ${dirs.map((d) => `'${d}'`).join(' ')} -type f | wc -l`]).toString())
console.log(`home: ${home}, ${files} files in the file-based stores, ${sources} sources indexed (built in ${ms(built / 1000)} s)`)
console.log(`machine: ${cpus().length} cores, ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, node ${process.version}`)
console.log(`rounds: ${runs}, medians in ms\n`)
console.log('| call | rg -l | without watch | with watch | without / rg | with / rg |')
console.log('|---|---:|---:|---:|---:|---:|')
for (const [name, r, a, b] of rows) {
  console.log(`| ${name} | ${ms(r)} | ${ms(a)} | ${ms(b)} | ${(a / r).toFixed(2)} | ${(b / r).toFixed(2)} |`)
}
const watched = status.watch.stores.filter((s) => s.watched).map((s) => s.agent)
const stat = status.watch.stores.filter((s) => !s.watched).map((s) => `${s.agent} (${s.reason})`)
console.log(`\nwatched: ${status.watch.directories} directories; stores watched: ${watched.join(', ') || 'none'}`)
console.log(`stat'ed at every call: ${stat.join('; ') || 'none'}; overflows: ${status.watch.overflows}`)
console.log(`process RSS: ${ms(before)} MB before the watching client, ${ms(setUp)} MB once it had listed every store, ${ms(rss())} MB at the end`)
// The kernel's memory for the watches is not in the process: inotify charges each watch to the
// user (fs.inotify.max_user_watches bounds it).
rmSync(cache, { recursive: true, force: true })
