// A long-lived client that learns what changed from the OS (`createClient({ watch: true })`):
// its warm calls of every search shape and `list('claude')`, side by side with
// `rg -uuu -i -F -l` over the same stores, in one run; the call after one message is appended;
// and a new process's first call. Several addons can be compared in the same run (before/after
// a change): each is loaded in a process of its own, and every round times rg and then each
// addon's call in turn.
//   node bench/watch.mjs <home> [name=addon.node ...]
// Without an addon named, the package's own (npm run build). The home is read in place; the
// "after one appended message" figure appends to one Claude session, so it is measured only on
// a home we may write (not under /work/bench-data: copy it with `cp -al`, the file appended to
// is then copied apart first). CACHE: a directory whose indexes are kept between runs (else a
// temporary one, built first), one cache dir in it per addon name (two index formats never share
// one); RUNS (default 7) rounds, medians in ms. Shapes: SHAPES, a JSON
// list of [name, query] (the defaults suit gen_home.py's --vocabulary real). UPDATES: the watching
// clients' `indexUpdates` (default 'wait'; 'background' is what `amux mcp` and `amux ui` use).
import { execFileSync, fork } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { rgList, rgVersion } from './rg.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]
const ms = (x) => x.toFixed(1)

const SHAPES = process.env.SHAPES
  ? JSON.parse(process.env.SHAPES)
  : [
      ['rare word', 'kubernetes'],
      ['a word in every session', 'the'],
      ['a word in half the sessions', 'function'],
      ['two words', 'function error'],
      ['phrase', '"docker compose"'],
      ['OR', 'kubernetes OR docker'],
      ['NOT', 'function NOT error'],
      ['prefix', 'kube*'],
      ['CJK', '大别山'],
    ]

// What rg is asked for each shape: the first word of an AND or phrase (a floor), both patterns
// of an OR, the positive word of a NOT, the prefix of a prefix.
function rgArgs(query) {
  const q = query.replace(/"/g, '')
  if (q.includes(' OR ')) return q.split(' OR ').flatMap((w) => ['-e', w])
  if (q.includes(' NOT ')) return ['-e', q.split(' NOT ')[0]]
  return ['-e', q.split(' ')[0].replace(/\*$/, '')]
}

if (process.argv[2] === '--worker') worker()
else await driver()

// ---- one addon's process: a watching client, its calls timed on request ----
function worker() {
  const { createClient } = createRequire(import.meta.url)('../index.js')
  const client = createClient({ cacheDir: process.env.AGENT_MUX_CACHE_DIR, indexUpdates: process.env.UPDATES ?? 'wait', watch: true })
  const call = ({ op, text }) =>
    op === 'list' ? client.sessions.list('claude', { limit: 1000000 }) : client.sessions.search({ text, limit: 50 })
  process.on('message', async (m) => {
    if (m.op === 'exit') process.exit(0)
    if (m.op === 'status') return process.send({ status: await client.index.status(), rss: process.memoryUsage().rss })
    if (m.op === 'update') {
      await client.index.update()
      return process.send({ done: true })
    }
    const cpu = process.cpuUsage()
    const t = performance.now()
    const out = await call(m)
    const used = process.cpuUsage(cpu)
    process.send({ ms: performance.now() - t, cpu: (used.user + used.system) / 1000, n: out.length })
  })
  process.send({ ready: true })
}

// ---- the driver ----
async function driver() {
  const [home, ...named] = process.argv.slice(2)
  if (!home) throw new Error('usage: node bench/watch.mjs <home> [name=addon.node ...]')
  const runs = Number(process.env.RUNS ?? 7)
  const cache = process.env.CACHE ?? mkdtempSync(join(tmpdir(), 'amux-watch-bench-'))
  const addons = named.length ? named.map((n) => n.split('=')) : [['this build', '']]
  const dirs = ['.claude', '.codex', '.gemini', '.copilot', '.pi', '.omp'].map((d) => join(home, d)).filter(existsSync)
  const rg = (query) => () => rgList([...rgArgs(query), ...dirs])
  const timed = async (f) => {
    const t = performance.now()
    await f()
    return performance.now() - t
  }

  const cacheOf = (name) => join(cache, name.replace(/[^\w.-]/g, '_'))
  const env = (addon, name) => ({ ...process.env, HOME: home, AGENT_MUX_CACHE_DIR: cacheOf(name), ...(addon ? { NAPI_RS_NATIVE_LIBRARY_PATH: addon } : {}) })
  const workers = []
  for (const [name, addon] of addons) {
    const child = fork(fileURLToPath(import.meta.url), ['--worker'], { env: env(addon, name) })
    const queue = []
    child.on('message', (m) => queue.shift()?.(m))
    const ask = (m) => new Promise((resolve) => (queue.push(resolve), m && child.send(m)))
    await ask() // ready
    workers.push({ name, addon, ask, child, env: env(addon, name) })
  }
  // Each addon's index brought up to date (built, unless CACHE kept it), one after another.
  const built = []
  for (const w of workers) {
    const t0 = performance.now()
    await w.ask({ op: 'update' })
    built.push(performance.now() - t0)
  }
  const calls = [...SHAPES.map(([name, text]) => [`${name} (${text})`, { op: 'search', text }, rg(text)]), ["list('claude')", { op: 'list' }, rg(SHAPES[0][1])]]
  // Each client's first calls: the watcher watches and lists every store once.
  const hits = {}
  for (const w of workers) for (const [name, m] of calls) hits[name] = (await w.ask(m)).n

  const rows = []
  // The CPU time of each warm call (user + system, every thread of the addon's process): on a
  // machine shared with other work it moves far less than the wall clock does.
  const cpuRows = []
  for (const [name, m, grep] of calls) {
    const t = { rg: [], ...Object.fromEntries(workers.map((w) => [w.name, []])) }
    const cpu = Object.fromEntries(workers.map((w) => [w.name, []]))
    for (let i = 0; i < runs; i++) {
      t.rg.push(await timed(grep))
      for (const w of workers) {
        const r = await w.ask(m)
        t[w.name].push(r.ms)
        cpu[w.name].push(r.cpu)
      }
    }
    rows.push([`${name}, ${hits[name]} results`, med(t.rg), workers.map((w) => med(t[w.name]))])
    cpuRows.push([name, workers.map((w) => med(cpu[w.name]))])
  }

  // One message appended to one Claude session between two warm calls of each client.
  const append = appendable(home)
  if (append) {
    const lines = readFileSync(append, 'utf8').trimEnd().split('\n')
    const [, m, grep] = calls[0]
    const t = { rg: [], ...Object.fromEntries(workers.flatMap((w) => [[w.name, []], [`${w.name} warm`, []]])) }
    for (let i = 0; i < runs; i++) {
      for (const w of workers) {
        // The first call takes in the other clients' appends (each watches the same file).
        await w.ask(m)
        t[`${w.name} warm`].push((await w.ask(m)).ms)
        appendFileSync(append, lines[lines.length - 1] + '\n')
        t[w.name].push((await w.ask(m)).ms)
      }
      t.rg.push(await timed(grep))
    }
    const warm = workers.map((w) => ms(med(t[`${w.name} warm`]))).join(' / ')
    rows.push([`${calls[0][0]} after one appended message (warm before it: ${warm})`, med(t.rg), workers.map((w) => med(t[w.name]))])
    rows.push(['  the same, against the warm call before it', 1, workers.map((w) => med(t[w.name]) / med(t[`${w.name} warm`]))])
  }

  // A new process: its first call on the index built (one stat per source, no watcher).
  for (const [name, m, grep] of [calls[0], calls[1]]) {
    const t = { rg: [], ...Object.fromEntries(workers.map((w) => [w.name, []])) }
    for (let i = 0; i < Math.min(runs, 5); i++) {
      t.rg.push(await timed(grep))
      for (const w of workers) t[w.name].push(firstCall(w.env, m.text))
    }
    rows.push([`first call in a new process: ${name}`, med(t.rg), workers.map((w) => med(t[w.name]))])
  }

  const statuses = []
  for (const w of workers) statuses.push(await w.ask({ op: 'status' }))
  for (const w of workers) w.child.send({ op: 'exit' })
  const files = Number(execFileSync('sh', ['-c', `find ${dirs.map((d) => `'${d}'`).join(' ')} -type f | wc -l`]).toString())
  console.log(`home: ${home}, ${files} files in the file-based stores, ${statuses[0].status.sources} sources indexed (indexes up to date in ${built.map((b) => ms(b / 1000)).join(' / ')} s)`)
  console.log(`machine: ${cpus().length} cores, ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, node ${process.version}, ${rgVersion()}`)
  console.log(`rounds: ${runs}, medians in ms; each round: rg, then ${workers.map((w) => w.name).join(', ')}\n`)
  const names = workers.map((w) => w.name)
  console.log(`| call | rg -l | ${names.join(' | ')} | ${names.map((n) => `${n} / rg`).join(' | ')} |`)
  console.log(`|---|---:|${names.map(() => '---:|').join('')}${names.map(() => '---:|').join('')}`)
  for (const [name, r, v] of rows) {
    if (r === 1) console.log(`| ${name} | | ${v.map((x) => x.toFixed(2) + '×').join(' | ')} | |`)
    else console.log(`| ${name} | ${ms(r)} | ${v.map(ms).join(' | ')} | ${v.map((x) => (x / r).toFixed(2)).join(' | ')} |`)
  }
  console.log(`\nWarm calls' CPU time (user + system, all threads of the process), medians in ms:\n`)
  console.log(`| call | ${names.join(' | ')} |`)
  console.log(`|---|${names.map(() => '---:|').join('')}`)
  for (const [name, v] of cpuRows) console.log(`| ${name} | ${v.map(ms).join(' | ')} |`)
  for (const [i, { status, rss }] of statuses.entries()) {
    const watch = status.watch
    const stores = watch.stores.map((s) => `${s.agent} ${s.watched ? 'watched' : `stat'ed (${s.reason})`}${s.listings !== undefined ? `, listed ${s.listings}×` : ''}`)
    console.log(`\n${names[i]}: ${watch.directories} directories watched, overflows ${watch.overflows}; ${stores.join('; ')}; RSS ${ms(rss / 1e6)} MB`)
  }
  load('end')
  if (!process.env.CACHE) rmSync(cache, { recursive: true, force: true })
}

function load(when) {
  console.log(`load average at the ${when}: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
}

// A new process's first search, from just before require to the settled promise (ms).
function firstCall(env, text) {
  const script = `const t=performance.now();const {createClient}=require(${JSON.stringify(root)});
createClient({cacheDir:process.env.AGENT_MUX_CACHE_DIR,indexUpdates:'wait'}).sessions.search({text:${JSON.stringify(text)},limit:50}).then(()=>console.log(performance.now()-t))`
  return Number(execFileSync(process.execPath, ['-e', script], { env }).toString())
}

// A Claude session of `home` the figure may append to (a file of its own, not a hard link into
// the bench data), or none.
function appendable(home) {
  if (home.startsWith('/work/bench-data')) return null
  const claude = join(home, '.claude/projects')
  if (!existsSync(claude)) return null
  const project = readdirSync(claude).find((d) => statSync(join(claude, d)).isDirectory())
  const file = join(claude, project, readdirSync(join(claude, project)).find((f) => f.endsWith('.jsonl')))
  if (statSync(file).nlink > 1) {
    copyFileSync(file, `${file}.copy`)
    renameSync(`${file}.copy`, file)
  }
  return file
}
