// What redaction costs and what it wrongly takes, as a Node app sees it (the built addon, in
// process).
//
//   node bench/redact.mjs fp <home> [<home> …]      false positives per 10 MB of session text
//   node bench/redact.mjs time <home> [runs]         get and export of the home's largest session,
//                                                     with and without redaction, side by side
//
// `fp` reads every session of every agent twice (`get`, redact off and on) and walks both side by
// side: every string that differs holds tags, and the text a tag replaced is recovered from the
// unredacted string. A home without planted secrets (the demo home, a generated one) holds none,
// so every tag is a false positive; each is listed with its rule. Sizes are the bytes of the
// sessions' JSON (`JSON.stringify` of `get`), raw records included.
import { createRequire } from 'node:module'
import { statSync } from 'node:fs'

const require = createRequire(import.meta.url)
const { createClient } = require('../index.js')

const TAG = /\[REDACTED:([a-z0-9-]+):[0-9a-f]{4}\]/g

/** The redactions in `red` (the redacted form of `plain`): [{ rule, text }]. */
function redactions(plain, red) {
  const out = []
  const pieces = red.split(TAG) // text, rule, text, rule, …, text
  let at = pieces[0].length
  for (let i = 1; i < pieces.length; i += 2) {
    const rule = pieces[i]
    const next = pieces[i + 1]
    const end = i + 2 >= pieces.length ? plain.length - next.length : next === '' ? at : plain.indexOf(next, at + 1)
    out.push({ rule, text: plain.slice(at, end < at ? at : end) })
    at = (end < at ? at : end) + next.length
  }
  return out
}

/** Every pair of strings at the same place of `a` and `b` that differ, walked together. */
function walk(a, b, found) {
  if (typeof a === 'string') {
    if (typeof b === 'string' && a !== b) found.push(...redactions(a, b))
    return
  }
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; i++) walk(a[i], b[i], found)
    return
  }
  for (const k of Object.keys(a)) walk(a[k], b[k], found)
}

async function falsePositives(home) {
  process.env.HOME = home
  const client = createClient({ cacheDir: false })
  const sessions = await client.sessions.listAll({ limit: 1e9 })
  let bytes = 0
  const found = []
  const t0 = performance.now()
  for (const s of sessions) {
    const plain = await client.sessions.get(s.agent, s.sessionId)
    const red = await client.sessions.get(s.agent, s.sessionId, { redact: true })
    bytes += Buffer.byteLength(JSON.stringify(plain))
    const here = []
    walk(plain, red, here)
    for (const f of here) found.push({ ...f, session: `${s.agent}:${s.sessionId}` })
  }
  const mb = bytes / 1e6
  console.log(`${home}: ${sessions.length} sessions, ${mb.toFixed(1)} MB of session JSON, read twice in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  console.log(`  redactions: ${found.length}, ${((found.length / mb) * 10).toFixed(3)} per 10 MB`)
  const byRule = new Map()
  for (const f of found) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1)
  console.log(`  by rule: ${[...byRule].sort((x, y) => y[1] - x[1]).map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}`)
  const byText = new Map()
  for (const f of found) {
    const key = `${f.rule}\t${f.text}`
    byText.set(key, (byText.get(key) ?? 0) + 1)
  }
  for (const [key, n] of [...byText].sort((x, y) => y[1] - x[1]).slice(0, 40)) {
    const [rule, text] = key.split('\t')
    console.log(`  ${String(n).padStart(5)}× ${rule}: ${JSON.stringify(text.length > 100 ? text.slice(0, 100) + '…' : text)}`)
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function timing(home, runs) {
  process.env.HOME = home
  // A client each way, as the MCP server makes one (`createClient({ redact })`); the index off, so
  // every call reads the session as the first call of a new process does.
  const clients = { false: createClient({ cacheDir: false }), true: createClient({ cacheDir: false, redact: true }) }
  const sessions = await clients.false.sessions.listAll({ limit: 1e9 })
  // The largest session: the one with the most messages.
  const big = sessions.reduce((a, b) => (b.messageCount > a.messageCount ? b : a))
  console.log(`${home}: ${big.agent}:${big.sessionId}, ${big.messageCount} messages`)
  const readSession = require('../mcp/tools/read-session.js')
  const read = (redact, extra) =>
    readSession
      .run(
        { id: `${big.agent}:${big.sessionId}`, context: 2, offset: 0, maxChars: 16000, includeOwnSession: true, ...extra },
        { client: clients[redact], own: { is: () => false } },
      )
      .then((r) => r.text)
  const calls = {
    get: (redact) => clients[redact].sessions.get(big.agent, big.sessionId),
    'export json': (redact) => clients[redact].sessions.export(big.agent, big.sessionId, 'json'),
    'export jsonl': (redact) => clients[redact].sessions.export(big.agent, big.sessionId, 'jsonl'),
    'export markdown': (redact) => clients[redact].sessions.export(big.agent, big.sessionId, 'markdown'),
    'mcp read_session': (redact) => read(redact, {}),
    'read_session around': (redact) => read(redact, { around: 'kubernetes' }),
  }
  for (const [name, call] of Object.entries(calls)) {
    const times = { false: [], true: [] }
    const cpu = { false: [], true: [] }
    let size = 0
    // Alternated, so both ways see the same page cache and the same machine load. CPU time (every
    // thread of the process) beside wall time: on a busy machine it moves far less.
    for (let i = 0; i < runs; i++) {
      for (const redact of [false, true]) {
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        let out = await call(redact)
        times[redact].push(performance.now() - t0)
        const c = process.cpuUsage(c0)
        cpu[redact].push((c.user + c.system) / 1000)
        if (typeof out === 'string') size = out.length
        out = null
        global.gc?.()
      }
    }
    const [off, on, cpuOff, cpuOn] = [times.false, times.true, cpu.false, cpu.true].map(median)
    const pct = (a, b) => `+${(((b - a) / a) * 100).toFixed(1)}%`
    console.log(
      `  ${name.padEnd(20)} wall off ${off.toFixed(0).padStart(6)} ms  on ${on.toFixed(0).padStart(6)} ms  ${pct(off, on).padStart(7)}` +
        `   cpu off ${cpuOff.toFixed(0).padStart(6)} ms  on ${cpuOn.toFixed(0).padStart(6)} ms  ${pct(cpuOff, cpuOn).padStart(7)}` +
        (size ? `   (${(size / 1e6).toFixed(size > 1e6 ? 0 : 2)} MB of text)` : ''),
    )
  }
}

const [what, ...args] = process.argv.slice(2)
if (what === 'fp') {
  for (const home of args) {
    statSync(home)
    await falsePositives(home)
  }
} else if (what === 'time') {
  await timing(args[0], Number(args[1] ?? 5))
} else {
  console.error('usage: node bench/redact.mjs fp <home>… | time <home> [runs]')
  process.exit(2)
}
