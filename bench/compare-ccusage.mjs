// Compare amux totalCost({groupBy:'day'}) with ccusage daily --json per day; prints the days whose
// totals differ by more than 0.5%.
import { readFileSync } from 'node:fs'
const [ours, theirs, label] = process.argv.slice(2)
const a = JSON.parse(readFileSync(ours, 'utf8')).result.breakdowns ?? {}
const raw = JSON.parse(readFileSync(theirs, 'utf8'))
const days = raw.daily ?? raw.data ?? []
let worst = 0
let compared = 0
for (const d of days) {
  const key = d.date ?? d.day
  const theirUsd = d.totalCost ?? d.costUSD ?? d.cost ?? 0
  const ourUsd = a[key]?.totalUsd ?? 0
  const rel = theirUsd === 0 ? (ourUsd === 0 ? 0 : 1) : Math.abs(ourUsd - theirUsd) / theirUsd
  worst = Math.max(worst, rel)
  compared++
  if (rel > 0.005) console.log(`${label} ${key}: amux $${ourUsd.toFixed(4)} vs ccusage $${theirUsd.toFixed(4)} (${(rel * 100).toFixed(2)}%)`)
}
console.log(`${label}: ${compared} days compared, worst difference ${(worst * 100).toFixed(3)}%`)
