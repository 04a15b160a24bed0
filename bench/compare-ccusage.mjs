// Compare amux's cost reports with ccusage's, report by report, agent by agent, on one home.
//   node bench/compare-ccusage.mjs <home> [--tz UTC] [--agents claude,codex] [--cache-dir DIR] [--cross-midnight]
// For every agent both tools read and every report ccusage has for it (daily, weekly, monthly,
// session; Claude's blocks), both run on <home> (HOME=<home>, the same TZ and --timezone):
// ccusage 20.0.24 from bench/tools (`npm install --prefix bench/tools ccusage@20.0.24`), --offline;
// amux through its API (cost.daily ...), with the index in a fresh cache directory (or --cache-dir).
// Periods: each row's tokens equal and its cost within 0.5%; rows on one side only disagree.
// Blocks: the same ids, and per block the same entries, tokens, cost, activity and burn rate.
// The differences docs/cost.md gives (DIFFERENCES below) are the only ones let
// through, and are named.
// --cross-midnight: also fail when no Claude or Codex session has usage on two UTC days (a
// generated home is meant to have such sessions). Exits 1 on any disagreement.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const flag = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const given = resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? '')
const tz = flag('--tz', 'UTC')
const ccusage = join(here, 'tools/node_modules/.bin/ccusage')
if (!existsSync(given) || !existsSync(ccusage)) {
  console.error('usage: node bench/compare-ccusage.mjs <home> [--tz Zone] [--agents a,b] [--cache-dir dir]')
  console.error('(ccusage: npm install --prefix bench/tools ccusage@20.0.24)')
  process.exit(2)
}

// The agents both tools read, and ccusage's reports for each (its `<agent> --help`).
const REPORTS = {
  claude: ['daily', 'weekly', 'monthly', 'session', 'blocks'],
  codex: ['daily', 'monthly', 'session'],
  opencode: ['daily', 'weekly', 'monthly', 'session'],
  gemini: ['daily', 'monthly', 'session'],
  copilot: ['daily', 'monthly', 'session'],
  pi: ['daily', 'monthly', 'session'],
  openclaw: ['daily', 'monthly', 'session'],
  hermes: ['daily', 'monthly', 'session'],
}

// Differences on purpose (docs/cost.md): which fields are not compared, for which agent, and why.
const DIFFERENCES = {
  claude: {
    sessionFamilies:
      'a response that a resumed session replays counts in the session that made it (amux), in the file whose path sorts first (ccusage): the session report is compared per family (a session and the sessions resumed from it)',
  },
  hermes: { cost: "Hermes records each session's cost (actual_cost_usd, else estimated_cost_usd); amux takes it before an estimate, ccusage prices the tokens" },
  copilot: { cost: 'for a model priced without a cache-write rate (gpt-5) amux bills cache writes as input, as OpenAI does; ccusage at 1.25x input, the Anthropic rate' },
}

// ccusage's weeks start on Sunday for Claude and on Monday for OpenCode; amux's on Sunday unless
// told. Claude's weekly report is also compared with weeks starting on Monday.
const WEEKS = { claude: ['sunday', 'monday'], opencode: ['monday'] }

// ccusage opens SQLite stores for writing (it leaves -shm and -wal files beside them): a home
// holding databases is compared in a copy, so the one given (the demo home) stays as it is.
const holdsDatabases = (dir) =>
  readdirSync(dir, { recursive: true }).some((f) => /\.(db|sqlite)$/.test(String(f)))
const home = holdsDatabases(given) ? mkdtempSync(join(tmpdir(), 'amux-compare-home-')) : given
if (home !== given) cpSync(given, home, { recursive: true })
process.env.TZ = tz
process.env.HOME = home
const cacheDir = flag('--cache-dir') ?? mkdtempSync(join(tmpdir(), 'amux-compare-'))
const { createClient } = await import('../index.mjs')
const mux = createClient({ cacheDir })

const theirs = (agent, report, start) => {
  const week = start && agent === 'claude' ? ['--start-of-week', start] : []
  const out = execFileSync(ccusage, [agent, report, '--json', '--offline', '--timezone', tz, ...week], {
    env: { ...process.env, HOME: home, TZ: tz },
    cwd: tmpdir(),
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return JSON.parse(out)
}

const ours = (agent, report, startOfWeek) => {
  const options = { agent, timezone: tz, startOfWeek }
  switch (report) {
    case 'daily':
      return mux.cost.daily(options)
    case 'weekly':
      return mux.cost.weekly(options)
    case 'monthly':
      return mux.cost.monthly(options)
    case 'session':
      return mux.cost.sessions(options)
    case 'blocks':
      return mux.cost.blocks({ timezone: tz })
  }
}

// ccusage's tokens beyond its four fields (Gemini thoughts, OpenCode reasoning) are reasoning it
// leaves out of outputTokens; amux's outputTokens includes reasoning for every agent.
const theirTokens = (r) => {
  const four = r.inputTokens + r.outputTokens + r.cacheCreationTokens + r.cacheReadTokens
  return {
    input: r.inputTokens,
    output: r.outputTokens + (r.totalTokens - four),
    cacheCreation: r.cacheCreationTokens,
    cacheRead: r.cacheReadTokens,
    total: r.totalTokens,
    cost: r.totalCost ?? r.costUSD ?? 0,
  }
}
const ourTokens = (r) => ({
  input: r.inputTokens,
  output: r.outputTokens,
  cacheCreation: r.cacheCreationTokens,
  cacheRead: r.cacheReadTokens,
  total: r.totalTokens,
  cost: r.totalCost,
})
const rel = (x, y) => (x === y ? 0 : Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)))

const keyOf = {
  daily: (r) => r.date,
  weekly: (r) => r.week,
  monthly: (r) => r.month,
  // Codex names a session by its rollout path, ending in the session's id.
  session: (r) => String(r.sessionId).replace(/^.*rollout-[0-9T:-]+-(?=[0-9a-f-]{36}$)/, ''),
}

let failed = false
const lines = []

// Rows summed by key (`family` maps a session to the first of the sessions it was resumed from).
function byKey(rows, key, tokens, family) {
  const out = new Map()
  for (const r of rows) {
    const k = family(key(r))
    const t = tokens(r)
    const sum = out.get(k)
    if (!sum) out.set(k, t)
    else for (const f of Object.keys(t)) sum[f] += t[f]
  }
  return out
}

// Claude's resumed sessions, from amux's own listing: a session -> the first it descends from.
async function families(agent) {
  if (agent !== 'claude') return (id) => id
  const parent = new Map()
  for (const s of await mux.sessions.list(agent, { limit: 1e6 })) if (s.forkedFrom) parent.set(s.sessionId, s.forkedFrom)
  return (id) => {
    while (parent.has(id)) id = parent.get(id)
    return id
  }
}

async function comparePeriods(agent, report, a, b) {
  const arrays = { daily: 'daily', weekly: 'weekly', monthly: 'monthly', session: 'sessions' }
  const family = report === 'session' ? await families(agent) : (id) => id
  const mine = byKey(a[arrays[report]], keyOf[report], ourTokens, family)
  const their = byKey(b[arrays[report]], keyOf[report], theirTokens, family)
  const skip = DIFFERENCES[agent] ?? {}
  const problems = []
  let worst = 0
  for (const key of new Set([...mine.keys(), ...their.keys()])) {
    const x = mine.get(key)
    const y = their.get(key)
    if (!x || !y) {
      problems.push(`${key}: only in ${x ? 'amux' : 'ccusage'}`)
      continue
    }
    for (const f of ['input', 'output', 'cacheCreation', 'cacheRead', 'total']) {
      if (x[f] !== y[f]) problems.push(`${key}: ${f} ${x[f]} vs ${y[f]}`)
    }
    if (!skip.cost) {
      const r = rel(x.cost, y.cost)
      worst = Math.max(worst, r)
      if (r > 0.005) problems.push(`${key}: cost $${x.cost.toFixed(6)} vs $${y.cost.toFixed(6)} (${(r * 100).toFixed(3)}%)`)
    }
  }
  const sum = (m) => [...m.values()].reduce((s, r) => s + r.cost, 0)
  const costNote = skip.cost ? 'cost not compared' : `worst cost ${(worst * 100).toFixed(4)}%`
  const rows = report === 'session' && agent === 'claude' ? 'session families' : 'rows'
  return {
    ok: problems.length === 0,
    text: `${mine.size} vs ${their.size} ${rows}, ${costNote}; total $${sum(mine).toFixed(4)} vs $${sum(their).toFixed(4)}`,
    problems,
  }
}

function compareBlocks(a, b) {
  const problems = []
  const mine = a.blocks
  const their = b.blocks
  if (mine.length !== their.length) problems.push(`${mine.length} blocks vs ${their.length}`)
  const theirById = new Map(their.map((x) => [x.id, x]))
  for (const x of mine) {
    const y = theirById.get(x.id)
    if (!y) {
      problems.push(`${x.id}: only in amux`)
      continue
    }
    const t = (z) => [z.entries, z.tokenCounts.inputTokens, z.tokenCounts.outputTokens, z.tokenCounts.cacheCreationInputTokens, z.tokenCounts.cacheReadInputTokens, z.totalTokens].join(',')
    if (t(x) !== t(y)) problems.push(`${x.id}: entries,tokens ${t(x)} vs ${t(y)}`)
    if (rel(x.costUSD, y.costUSD) > 1e-9) problems.push(`${x.id}: cost ${x.costUSD} vs ${y.costUSD}`)
    if (x.isActive !== y.isActive) problems.push(`${x.id}: active ${x.isActive} vs ${y.isActive}`)
    // The active block's burn rate (from its own requests; its projection also depends on when
    // each tool ran, a minute apart or so).
    for (const f of ['tokensPerMinute', 'tokensPerMinuteForIndicator', 'costPerHour']) {
      if (x.burnRate && y.burnRate && rel(x.burnRate[f], y.burnRate[f]) > 1e-9) problems.push(`${x.id}: burnRate.${f} ${x.burnRate[f]} vs ${y.burnRate[f]}`)
    }
    if (Boolean(x.burnRate) !== Boolean(y.burnRate)) problems.push(`${x.id}: burn rate on one side only`)
  }
  for (const y of their) if (!mine.some((x) => x.id === y.id)) problems.push(`${y.id}: only in ccusage`)
  const gaps = mine.filter((x) => x.isGap).length
  return { ok: problems.length === 0, text: `${mine.length} vs ${their.length} blocks (${gaps} gaps)`, problems }
}

const wanted = flag('--agents')?.split(',') ?? Object.keys(REPORTS)
const runs = wanted.flatMap((agent) =>
  (REPORTS[agent] ?? []).flatMap((report) =>
    report === 'weekly' ? (WEEKS[agent] ?? ['sunday']).map((start) => [agent, report, start]) : [[agent, report]],
  ),
)
for (const [agent, report, start] of runs) {
  {
    let b
    try {
      b = theirs(agent, report, start)
    } catch (e) {
      lines.push(`${agent} ${report}: ccusage failed (${String(e.message).split('\n')[0]})`)
      failed = true
      continue
    }
    const a = JSON.parse(JSON.stringify(await ours(agent, report, start)))
    const rows = b.blocks ?? b.daily ?? b.weekly ?? b.monthly ?? b.sessions ?? []
    const mineRows = a.blocks ?? a.daily ?? a.weekly ?? a.monthly ?? a.sessions ?? []
    if (rows.length === 0 && mineRows.length === 0) continue // neither has this agent's data
    const c = report === 'blocks' ? compareBlocks(a, b) : await comparePeriods(agent, report, a, b)
    const name = start ? `${report} (weeks from ${start})` : report
    lines.push(`${c.ok ? 'ok  ' : 'FAIL'} ${agent} ${name}: ${c.text}`)
    for (const p of c.problems.slice(0, 10)) lines.push(`       ${p}`)
    if (c.problems.length > 10) lines.push(`       ... ${c.problems.length - 10} more`)
    failed ||= !c.ok
  }
}

for (const [agent, d] of Object.entries(DIFFERENCES)) {
  for (const [what, why] of Object.entries(d)) {
    if (wanted.includes(agent)) lines.push(`note: ${agent}: ${what === 'cost' ? 'cost not compared' : what}: ${why}`)
  }
}

if (args.includes('--cross-midnight')) {
  // Sessions whose usage lines fall on more than one UTC day: the per-day split is then tested.
  const files = []
  const walk = (dir) => {
    if (!existsSync(dir)) return
    for (const n of readdirSync(dir)) {
      const p = join(dir, n)
      if (statSync(p).isDirectory()) walk(p)
      else if (n.endsWith('.jsonl')) files.push(p)
    }
  }
  walk(join(home, '.claude'))
  walk(join(home, '.codex'))
  let crossing = 0
  for (const f of files) {
    const days = new Set()
    for (const m of readFileSync(f, 'utf8').matchAll(/"timestamp":"(\d{4}-\d\d-\d\d)/g)) days.add(m[1])
    if (days.size > 1) crossing++
  }
  lines.push(`${crossing} of ${files.length} Claude and Codex session files have lines on two UTC days or more`)
  if (crossing === 0) failed = true
}

console.log(`${given} (TZ ${tz})`)
console.log(lines.join('\n'))
if (!flag('--cache-dir')) rmSync(cacheDir, { recursive: true, force: true })
if (home !== given) rmSync(home, { recursive: true, force: true })
process.exit(failed ? 1 : 0)
