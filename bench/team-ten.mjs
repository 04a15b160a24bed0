// Ten machines' worth of a team database, for the reading goals (a team search <= 1 s and a team
// cost by day <= 0.5 s on 10 GB synced from 10 machines, 2 cores, PostgreSQL on this machine).
//   node bench/team-ten.mjs <url> <home> [--machines N]
//   node bench/team-ten.mjs <url> --machine NAME [--machines N]
// <home> (a generated bench home, indexed or not) is synced once through `amux sync` as machine
// `m0` (user `u0`), or the machine NAME a sync left in the database (bench/team.mjs <home> <url>)
// is taken as it is; its rows are then copied in SQL as machines m1 … m(N-1), users u1 …, each
// moved back in time by its number of weeks, so that the days, the recency and the cost by day
// spread as ten machines' would. Generating and syncing nine more 1 GB homes would take hours
// on this machine: the copies hold the same text, which for the timing of a search is what
// matters (each word is in ten times the messages of ten times the sessions, as it would be for
// ten machines whose sessions one generator made). The GIN indexes are dropped for the copy and
// built again after it, in bulk (as the sync's first load does).
// With --cost-only the messages are not copied (the cost calls read sessions and usage alone):
// minutes instead of half an hour, for measuring the cost calls.
// The database is left in place: measure it with bench/team-read.mjs <url>.
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const require = createRequire(import.meta.url)
const { createClient } = require('../index.js')
const [url, homeArg] = process.argv.slice(2)
if (!url || !homeArg) {
  process.stderr.write('usage: node bench/team-ten.mjs <url> <home> [--machines N]\n')
  process.exit(2)
}
const at = process.argv.indexOf('--machines')
const machines = at > 0 ? Number(process.argv[at + 1]) : 10
const costOnly = process.argv.includes('--cost-only')
const from = homeArg === '--machine' ? process.argv[4] : null
const home = resolve(homeArg)
const source = from ?? 'm0'
const psql = (sql) => {
  const r = spawnSync('psql', [url, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return r.stdout.trim()
}
const seconds = (t) => ((performance.now() - t) / 1000).toFixed(1) + ' s'

const work = mkdtempSync(join(tmpdir(), 'amux-team-ten-'))
process.env.HOME = home
process.env.AGENT_MUX_CACHE_DIR ??= join(work, 'cache')
try {
  let t = performance.now()
  if (!from) {
    const client = createClient({ indexChild: false })
    await client.index.update()
    process.stdout.write(`index update: ${seconds(t)}\n`)
    t = performance.now()
    const r = await client.sync(url, { machine: 'm0', user: 'u0' })
    await client.close()
    process.stdout.write(`sync of m0: ${seconds(t)} (${r.sessions} sessions, ${r.messages} messages, ${r.usage} usage rows)\n`)
  }

  t = performance.now()
  const indexes = psql(`SELECT string_agg(pg_get_indexdef(i.indexrelid), ';') FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
    WHERE i.indrelid = 'messages'::regclass AND a.amname = 'gin'`).split(';').filter(Boolean)
  for (const def of indexes) psql(`DROP INDEX ${def.match(/INDEX (\S+) ON/)[1]}`)
  const columns = (table) =>
    psql(`SELECT string_agg(quote_ident(column_name), ',' ORDER BY ordinal_position) FROM information_schema.columns
      WHERE table_name = '${table}' AND is_generated = 'NEVER'`).split(',')
  // Each copy: another machine and user, its times moved back by k weeks.
  const moved = (table, k) => columns(table).map((c) => {
    if (c === 'machine') return `'m${k}'`
    if (c === 'os_user') return `'u${k}'`
    if (['created_at', 'updated_at', 'at', 'deleted_at', 'synced_at'].includes(c)) return `${c} - interval '${7 * k} days'`
    if (c === 'day') return `day - ${7 * k}`
    return c
  }).join(',')
  for (let k = 1; k < machines; k++) {
    psql(`INSERT INTO machines SELECT 'm${k}', 'u${k}', last_sync_at, amux_version FROM machines WHERE machine = '${source}'`)
    // usage_days is the summary the team's cost reports read: without its copies they would sum
    // m0 alone.
    const tables = ['sessions', 'usage', 'usage_days', ...(costOnly ? [] : ['messages'])]
    for (const table of tables) {
      psql(`INSERT INTO ${table} (${columns(table).join(',')}) SELECT ${moved(table, k)} FROM ${table} WHERE machine = '${source}'`)
    }
  }
  process.stdout.write(`copied m0 as ${machines - 1} more machines: ${seconds(t)}\n`)
  t = performance.now()
  psql('SET maintenance_work_mem = \'512MB\'; ' + indexes.join('; '))
  psql('VACUUM ANALYZE')
  process.stdout.write(`GIN indexes built, vacuumed and analysed: ${seconds(t)}\n`)
  process.stdout.write(psql(`SELECT pg_size_pretty(pg_database_size(current_database())) || ': ' ||
    (SELECT count(*) FROM sessions) || ' sessions, ' || (SELECT count(*) FROM messages) || ' messages, ' ||
    (SELECT count(*) FROM usage) || ' usage rows, ' || (SELECT count(*) FROM usage_days) || ' usage_days rows, ' ||
    (SELECT count(*) FROM machines) || ' machines'`) + '\n')
} finally {
  rmSync(work, { recursive: true, force: true })
}
