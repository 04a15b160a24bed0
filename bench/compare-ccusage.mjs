// Compare amux totalCost({groupBy:'day'}) with ccusage daily --json, day by day. Both put each
// usage record on the day of its own timestamp, so every day must agree within 0.5%; days are
// never grouped. Exits 1 when a day differs (or is on one side only).
// Usage: node bench/compare-ccusage.mjs ours.json ccusage.json label [storeDir]
// With storeDir (the agent's session files), also counts the sessions whose lines span more than
// one UTC day (run both tools with TZ=UTC), and fails when there are none: the comparison is
// meant to cover sessions that cross midnight.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
const [ours, theirs, label, store] = process.argv.slice(2)
const a = JSON.parse(readFileSync(ours, 'utf8')).result.breakdowns ?? {}
const raw = JSON.parse(readFileSync(theirs, 'utf8'))
const their = new Map((raw.daily ?? raw.data ?? []).map((d) => [d.date ?? d.day, d.totalCost ?? d.costUSD ?? d.cost ?? 0]))
const rel = (x, y) => (y === 0 ? (x === 0 ? 0 : 1) : Math.abs(x - y) / y)
const days = [...new Set([...Object.keys(a), ...their.keys()])].sort()
let worst = 0
let within = 0
for (const day of days) {
  const o = a[day]?.totalUsd ?? 0
  const t = their.get(day) ?? 0
  const r = rel(o, t)
  worst = Math.max(worst, r)
  if (r <= 0.005) within++
  else console.log(`${label} ${day}: amux $${o.toFixed(6)} vs ccusage $${t.toFixed(6)} (${(r * 100).toFixed(2)}%)`)
}
const ourTotal = Object.values(a).reduce((s, b) => s + b.totalUsd, 0)
const theirTotal = [...their.values()].reduce((s, x) => s + x, 0)
console.log(`${label}: ${days.length} days compared, ${within} within 0.5%, worst ${(worst * 100).toFixed(4)}%; all days: amux $${ourTotal.toFixed(6)} vs ccusage $${theirTotal.toFixed(6)}`)
let failed = within !== days.length || days.length === 0

if (store) {
  const files = []
  const walk = (dir) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n)
      if (statSync(p).isDirectory()) walk(p)
      else if (n.endsWith('.jsonl')) files.push(p)
    }
  }
  walk(store)
  let crossing = 0
  for (const f of files) {
    const stamps = readFileSync(f, 'utf8').split('\n').flatMap((l) => {
      const m = /"timestamp":"([^"]+)"/.exec(l)
      return m ? [m[1].slice(0, 10)] : []
    })
    if (new Set(stamps).size > 1) crossing++
  }
  console.log(`${label}: ${crossing} of ${files.length} sessions cross midnight UTC`)
  if (crossing === 0) failed = true
}
process.exit(failed ? 1 : 0)
