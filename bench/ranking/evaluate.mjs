// nDCG@10 and MRR of `sessions.search` over the labelled home bench/ranking/make_home.py writes.
//
//   node bench/ranking/evaluate.mjs <home> [<package dir with index.js>] [--verbose]
//
// The package dir defaults to this checkout; give another build's dir to compare before/after.
// MRR counts the rank of the first result with the query's best grade.
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2).filter((a) => a !== '--verbose')
const verbose = process.argv.includes('--verbose')
const home = path.resolve(args[0])
const pkg = path.resolve(args[1] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..'))
for (const name of Object.keys(process.env)) {
  if (/^(AGENT_MUX_|CLAUDE_CONFIG_DIR|CODEX_HOME|GEMINI_CLI_HOME|COPILOT_HOME|XDG_|OPENCODE_DB|PI_CODING|OMP_|OPENCLAW_|CLAWDBOT_|HERMES_HOME|CURSOR_CONFIG_DIR)/.test(name)) {
    delete process.env[name]
  }
}
process.env.HOME = home
process.env.USERPROFILE = home

const { createClient } = createRequire(import.meta.url)(path.join(pkg, 'index.js'))
const { sessions } = createClient()
const { queries } = JSON.parse(readFileSync(path.join(home, 'qrels.json'), 'utf8'))

const dcg = (grades) => grades.slice(0, 10).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0)
// Sums per kind of query: [nDCG, RR, count].
const kinds = { 'single words': [0, 0, 0], 'word pairs': [0, 0, 0], 'OR triples': [0, 0, 0], all: [0, 0, 0] }
const kindOf = (q) => (q.includes(' OR ') ? 'OR triples' : q.includes(' ') ? 'word pairs' : 'single words')
for (const { query, grades } of queries) {
  const results = await sessions.search({ text: query, limit: 10 })
  const got = results.map((s) => grades[s.sessionId] ?? 0)
  const ideal = Object.values(grades).sort((a, b) => b - a)
  const ndcg = dcg(got) / dcg(ideal)
  const best = ideal[0]
  const first = got.indexOf(best)
  const rr = first < 0 ? 0 : 1 / (first + 1)
  for (const k of [kindOf(query), 'all']) {
    kinds[k][0] += ndcg
    kinds[k][1] += rr
    kinds[k][2] += 1
  }
  if (verbose) console.log(`${query.padEnd(36)} nDCG@10 ${ndcg.toFixed(3)}  RR ${rr.toFixed(2)}  grades ${got.join('')}`)
}
for (const [kind, [ndcg, rr, n]] of Object.entries(kinds)) {
  console.log(`${kind.padEnd(13)} ${String(n).padStart(2)} queries  nDCG@10 ${(ndcg / n).toFixed(3)}  MRR ${(rr / n).toFixed(3)}`)
}
