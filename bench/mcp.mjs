// `amux mcp` in a running server, side by side with ripgrep in one run:
//  - search_sessions, request written → response read, against rg's whole process over the same
//    files (`rg -uuu -i -F -l <word> <stores>`), alternating, median of --runs each;
//  - read_session with `around` on a 200 MB session: its time and that it stays within maxChars,
//    beside the library's get() of the same session in process.
// The index lives in a private cache directory (never the home's own), built by `amux index
// update` before the server starts; the build and the server's first call are reported apart.
// Use the release addon (`npm run build`).
//
//   node bench/mcp.mjs --home /tmp/h1g --huge /tmp/huge-mcp [--runs 15] [--words kubernetes,borrow,zzqxjw] [--only search|read]
//
// Data: `python3 scripts/gen_home.py --out /tmp/h1g --agents claude,codex --sessions 7500 --seed 1
// --scale 36` (the 1.1 GB bench home) and `python3 scripts/gen_home.py --out /tmp/huge-mcp
// --sessions 0 --huge-mb 200 --agents claude` (one 200 MB Claude session).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, readdirSync, statSync, readFileSync } from 'node:fs'
import { tmpdir, cpus, totalmem, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { rgList, rgVersion } from './rg.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: opt } = parseArgs({
  options: {
    home: { type: 'string', default: '/tmp/h1g' },
    huge: { type: 'string', default: '/tmp/huge-mcp' },
    runs: { type: 'string', default: '15' },
    words: { type: 'string', default: 'kubernetes,borrow,zzqxjw,the' },
    only: { type: 'string' }, // 'search' or 'read'
  },
})
const RUNS = Number(opt.runs)
const HUGE_ID = 'claude:00000000-0000-4000-8000-000000000200'

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ms = (x) => `${x.toFixed(1)} ms`
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100)

// CPU time (user + system, all threads) a process has used so far: on a machine whose cores are
// shared, wall time says how long a call waited too; this says how much work it was.
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

/** A server over `home`, spoken to in raw JSON-RPC lines: `call` resolves with the response and its time. */
function server(home, cache) {
  const child = spawn(process.execPath, [join(root, 'bin', 'amux.js'), 'mcp'], {
    env: { ...process.env, HOME: home, AGENT_MUX_CACHE_DIR: cache },
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  const waiting = new Map()
  let buffer = ''
  let id = 0
  child.stdout.on('data', (chunk) => {
    buffer += chunk
    let nl
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      const message = JSON.parse(line)
      waiting.get(message.id)?.(message)
    }
  })
  const request = (method, params) =>
    new Promise((resolve) => {
      const n = ++id
      const cpu = cpuMs(child.pid)
      const start = performance.now()
      waiting.set(n, (message) => resolve({ message, ms: performance.now() - start, cpuMs: cpuMs(child.pid) - cpu }))
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`)
    })
  return {
    request,
    call: (name, args) => request('tools/call', { name, arguments: args }),
    async open() {
      await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } })
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    },
    close: () => child.stdin.end(),
  }
}

/** rg's whole process: wall time, and its CPU time as /usr/bin/time reports it. */
function rg(word, dirs) {
  const start = performance.now()
  const run = rgList([word, ...dirs], { prefix: ['/usr/bin/time', '-f', '%U %S'], stdio: ['ignore', 'pipe', 'pipe'] })
  const wall = performance.now() - start
  const [user, sys] = run.stderr.toString().trim().split('\n').pop().split(' ').map(Number)
  return { ms: wall, cpuMs: (user + sys) * 1000, files: run.stdout.toString().split('\n').filter(Boolean).length }
}

const stores = (home) => readdirSync(home).filter((d) => !['.cache', '.config'].includes(d)).map((d) => join(home, d))
const bytes = (dir) => {
  let n = 0
  const walk = (p) => {
    const st = statSync(p)
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e))
    else n += st.size
  }
  walk(dir)
  return n
}

const cache = mkdtempSync(join(tmpdir(), 'amux-mcp-bench-'))
try {
  const addon = statSync(process.env.NAPI_RS_NATIVE_LIBRARY_PATH || join(root, 'agent-mux.linux-x64-gnu.node')).size
  console.log(`## machine\n${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${rgVersion()}, addon ${(addon / 1e6).toFixed(0)} MB (${addon > 50e6 ? 'debug' : 'release'}), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)

  // --- search_sessions against rg ---
  if (opt.only !== 'read') await searchVsRg()
  if (opt.only !== 'search') await readAround()
} finally {
  rmSync(cache, { recursive: true, force: true })
}

async function searchVsRg() {
  const dirs = stores(opt.home)
  const total = dirs.reduce((n, d) => n + bytes(d), 0)
  console.log(`\n## search_sessions vs rg (${opt.home}: ${(total / 1e9).toFixed(2)} GB in ${dirs.map((d) => d.split('/').pop()).join(', ')})`)
  // The index is built first, whole: the server's own first calls answer while a background
  // build is under way, from the stores, and would be timed as warm ones.
  const t = performance.now()
  const built = spawnSync(process.execPath, [join(root, 'bin', 'amux.js'), 'index', 'update'], {
    env: { ...process.env, HOME: opt.home, AGENT_MUX_CACHE_DIR: cache },
    stdio: 'ignore',
  })
  if (built.status !== 0) throw new Error(`amux index update exited with ${built.status}`)
  console.log(`index built: ${ms(performance.now() - t)}`)
  const s = server(opt.home, cache)
  await s.open()
  const first = await s.call('search_sessions', { query: 'kubernetes' })
  console.log(`the server's first call: ${ms(first.ms)}`)
  for (const word of opt.words.split(',')) {
    const ours = []
    const theirs = []
    const oursCpu = []
    const theirsCpu = []
    let hits = 0
    let files = 0
    rg(word, dirs) // page cache warm for rg too
    await s.call('search_sessions', { query: word })
    for (let i = 0; i < RUNS; i++) {
      const r = rg(word, dirs)
      theirs.push(r.ms)
      theirsCpu.push(r.cpuMs)
      files = r.files
      const c = await s.call('search_sessions', { query: word })
      ours.push(c.ms)
      oursCpu.push(c.cpuMs)
      hits = c.message.result.structuredContent.hits.length
    }
    const ratio = median(ours) / median(theirs)
    const cpuRatio = median(oursCpu) / median(theirsCpu)
    console.log(`${word}: search_sessions ${ms(median(ours))} (${hits} hits shown) vs rg -l ${ms(median(theirs))} (${files} files): ${ratio.toFixed(2)}x; CPU ${ms(median(oursCpu))} vs ${ms(median(theirsCpu))}: ${cpuRatio.toFixed(2)}x`)
  }
  s.close()
}

// --- read_session around on the 200 MB session ---
async function readAround() {
  const file = join(opt.huge, '.claude', 'projects', '-home-dev-src-shop', `${HUGE_ID.split(':')[1]}.jsonl`)
  console.log(`\n## read_session around on a ${(statSync(file).size / 1e6).toFixed(0)} MB session`)
  const h = server(opt.huge, cache)
  await h.open()
  for (const [around, maxChars] of [['kubernetes', 16000], ['OOMKilled', 16000], ['zzqxjw', 16000], ['kubernetes', 4000]]) {
    const times = []
    const cpu = []
    let result
    for (let i = 0; i < 5; i++) {
      const r = await h.call('read_session', { id: HUGE_ID, around, maxChars })
      times.push(r.ms)
      cpu.push(r.cpuMs)
      result = r.message.result
    }
    const { text, hitCount, truncated } = result.structuredContent
    console.log(`around ${around}, maxChars ${maxChars}: first ${ms(times[0])}, median ${ms(median(times))} (server CPU ${ms(median(cpu))}); ${hitCount} messages with hits, text ${text.length} chars (${text.length <= maxChars ? 'within' : 'OVER'} maxChars)${truncated ? ', cut' : ''}`)
  }
  const page = await h.call('read_session', { id: HUGE_ID, maxChars: 16000 })
  console.log(`without around, first page: ${ms(page.ms)} (server CPU ${ms(page.cpuMs)}), text ${page.message.result.structuredContent.text.length} chars`)
  h.close()

  // The library's get() of the same session, in a fresh process, for comparison.
  const get = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { createClient } from ${JSON.stringify(join(root, 'index.mjs'))}
    const c = createClient({ cacheDir: false })
    const t = performance.now()
    const cpu = process.cpuUsage()
    const s = await c.sessions.get('claude', ${JSON.stringify(HUGE_ID.split(':')[1])})
    const u = process.cpuUsage(cpu)
    console.log(JSON.stringify({ ms: performance.now() - t, cpuMs: (u.user + u.system) / 1000, messages: s.messages.length, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }))
  `], { env: { ...process.env, HOME: opt.huge }, encoding: 'utf8' })
  const g = JSON.parse(get.stdout)
  console.log(`get() of the same session in process: ${ms(g.ms)} (CPU ${ms(g.cpuMs)}), ${g.messages} messages, max RSS ${g.maxRssMb} MB`)
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
}
