// The team database's goals, on one home and a PostgreSQL on this machine:
// - the first `sync` of the home (the index built beforehand, timed apart) <= 2 min;
// - a `sync` after one message appended to a Claude session <= 1 s;
// and where the first sync's time goes (the server's share, the size of each table and index).
//   node bench/team.mjs <home> [url]
// Without a URL a durable throw-away cluster is started (scripts/pg.mjs --durable: fsync on, as
// a real server). The home is read in place and one Claude file gets one appended line: run it
// on a copy. The cache directory is a fresh temporary one unless AGENT_MUX_CACHE_DIR names one.
import { createRequire } from 'node:module'
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { startCluster, stopCluster } from '../scripts/pg.mjs'

const require = createRequire(import.meta.url)
const { createClient } = require('../index.js')
const home = resolve(process.argv[2] ?? 'bench/data/home')
const work = mkdtempSync(join(tmpdir(), 'amux-team-bench-'))
process.env.HOME = home
// An index built beforehand may be named (AGENT_MUX_CACHE_DIR); its update is then quick.
process.env.AGENT_MUX_CACHE_DIR ??= join(work, 'cache')

const du = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0])
const seconds = (ms) => (ms / 1000).toFixed(2) + ' s'
const psql = (url, sql) => spawnSync('psql', [url, '-XAtq', '-c', sql], { encoding: 'utf8' }).stdout.trim()

async function timed(fn) {
  const t = performance.now()
  const r = await fn()
  return [performance.now() - t, r]
}

/** The newest Claude session file of the home. */
function claudeFile() {
  const root = join(home, '.claude', 'projects')
  let best = null
  for (const d of readdirSync(root)) {
    for (const f of readdirSync(join(root, d))) {
      if (!f.endsWith('.jsonl')) continue
      const p = join(root, d, f)
      const m = statSync(p).mtimeMs
      if (!best || m > best.m) best = { p, m }
    }
  }
  return best.p
}

const cluster = process.argv[3] ? null : await startCluster({ durable: true })
const url = process.argv[3] ?? cluster.url
try {
  const client = createClient({ indexChild: false })
  const [indexMs] = await timed(() => client.index.update())
  const [firstMs, first] = await timed(() => client.sync(url, { machine: 'bench' }))
  const [noopMs] = await timed(() => client.sync(url, { machine: 'bench' }))

  const file = claudeFile()
  const last = JSON.parse(readFileSync(file, 'utf8').trimEnd().split('\n').pop())
  const line = {
    parentUuid: last.uuid ?? null,
    isSidechain: false,
    type: 'user',
    sessionId: last.sessionId,
    cwd: last.cwd,
    uuid: '00000000-0000-4000-8000-00000000beef',
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: 'one more question about the flaky test' },
  }
  appendFileSync(file, JSON.stringify(line) + '\n')
  const [appendMs, appended] = await timed(() => client.sync(url, { machine: 'bench' }))
  await client.close()

  const sizes = psql(
    url,
    "SELECT string_agg(c.relname || ' ' || pg_size_pretty(pg_relation_size(c.oid)), ', ' ORDER BY pg_relation_size(c.oid) DESC) " +
      "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 't') AND pg_relation_size(c.oid) > 1000000",
  )
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown'
  console.log(`machine: ${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, PostgreSQL ${psql(url, 'SHOW server_version')}`)
  console.log(`home: ${(du(home) / 2 ** 30).toFixed(2)} GB`)
  console.log(`index update (before, not counted): ${seconds(indexMs)}`)
  console.log(`first sync: ${seconds(firstMs)} (${first.sessions} sessions, ${first.messages} messages, ${first.usage} usage rows; goal <= 120 s)`)
  console.log(`sync with nothing changed: ${seconds(noopMs)}`)
  console.log(`sync after one appended message: ${seconds(appendMs)} (${appended.sessions} session, ${appended.messages} message rows; goal <= 1 s)`)
  console.log(`database: ${psql(url, 'SELECT pg_size_pretty(pg_database_size(current_database()))')}; ${sizes}`)
} finally {
  if (cluster) stopCluster(cluster.dir)
  rmSync(work, { recursive: true, force: true })
}
