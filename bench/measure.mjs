// One measurement in a fresh process, so peak RSS belongs to that operation alone.
// Usage: node bench/measure.mjs <op> <home> [args...]; prints one JSON line {op, ms, maxRssMb, result}.
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'

const [op, home, ...args] = process.argv.slice(2)
process.env.HOME = home
// The scan path unless BENCH_CACHE_DIR names the index's directory (never the user's own cache).
const mux = createClient({ cacheDir: process.env.BENCH_CACHE_DIR || false })
const t0 = performance.now()
let result
switch (op) {
  case 'list': {
    // cold: first call of a fresh client; warm: the same call again (summary cache)
    let n = 0
    for (const a of BUILT_IN_AGENTS) n += (await mux.sessions.list(a, { limit: 1e6 })).length
    const cold = performance.now() - t0
    const t1 = performance.now()
    for (const a of BUILT_IN_AGENTS) await mux.sessions.list(a, { limit: 1e6 })
    result = { sessions: n, coldMs: Math.round(cold), warmMs: Math.round(performance.now() - t1) }
    break
  }
  case 'list-one': {
    // one agent's sessions, as `amux sessions list <agent>` asks for them
    result = { sessions: (await mux.sessions.list(args[0], { limit: 1e6 })).length }
    break
  }
  case 'search': {
    const hits = await mux.sessions.search({ text: args[0], agent: args[1], limit: 1e6 })
    result = { hits: hits.length }
    break
  }
  case 'search-files': {
    // the six file-based agents (the directories rg is given), searched at once
    const agents = ['claude', 'codex', 'gemini', 'copilot', 'pi', 'omp']
    const all = await Promise.all(agents.map((agent) => mux.sessions.search({ text: args[0], agent, limit: 1e6 })))
    result = { hits: all.reduce((n, v) => n + v.length, 0) }
    break
  }
  case 'search-warm': {
    await mux.sessions.search({ text: args[0], agent: args[1] })
    const times = []
    for (let i = 0; i < 21; i++) {
      const t = performance.now()
      await mux.sessions.search({ text: args[0] + (i % 2 ? '' : ' '), agent: args[1] })
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    result = { medianMs: +times[10].toFixed(2) }
    break
  }
  case 'cost': {
    const c = await mux.sessions.totalCost({ groupBy: args[0] || undefined, agent: args[1] })
    result = { totalUsd: c.totalUsd, sessions: c.sessionCount, breakdowns: c.breakdowns }
    break
  }
  case 'all': {
    // list every agent, search, totalCost: what a store with hostile files must survive
    let n = 0
    for (const a of BUILT_IN_AGENTS) n += (await mux.sessions.list(a, { limit: 1e6 })).length
    const hits = await mux.sessions.search({ text: args[0] || 'the', limit: 1e6 })
    const c = await mux.sessions.totalCost({})
    result = { sessions: n, hits: hits.length, costSessions: c.sessionCount }
    break
  }
  case 'noop': {
    // the floor: node with the addon loaded and a client made, nothing read
    result = {}
    break
  }
  case 'get': {
    const s = await mux.sessions.get(args[0], args[1])
    result = { messages: s.messages.length }
    break
  }
  case 'export': {
    const out = await mux.sessions.export(args[0], args[1], args[2])
    result = { bytes: Buffer.byteLength(out) }
    break
  }
  case 'diff': {
    const d = await mux.sessions.diff({ agent: args[0], sessionId: args[1] }, { agent: args[2], sessionId: args[3] })
    result = d.stats
    break
  }
  default:
    throw new Error(`unknown op ${op}`)
}
const ms = performance.now() - t0
console.log(JSON.stringify({ op, ms: Math.round(ms), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), result }))
