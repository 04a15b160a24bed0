// amux sync against a real PostgreSQL (vitest's global setup starts a throw-away one, or
// AGENT_MUX_TEST_PG names one): the command line and the library push a home into a database
// of the test's own; a sync killed with SIGKILL at several points and then run again leaves no
// duplicate and no missing row, and the team's cost is the local totalCost; the password given in
// the URL, PGPASSWORD or .pgpass never appears in any output or error.
import { describe, it, expect, beforeAll, afterAll, inject } from 'vitest'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { createClient } from '../index.mjs'
import { repoRoot, copyDemoHome, removeDir, genHome, withHome } from './helpers.mjs'

const bin = join(repoRoot, 'bin', 'amux.js')
const server = inject('pgUrl') || process.env.AGENT_MUX_TEST_PG || ''
if (!server && process.env.AGENT_MUX_REQUIRE_FIXTURES === '1') {
  throw new Error('no PostgreSQL for the team tests (install postgresql, or set AGENT_MUX_TEST_PG) and AGENT_MUX_REQUIRE_FIXTURES=1')
}
if (!server) console.warn('skipping the team database tests: no PostgreSQL (initdb) on this machine')

const password = server ? new URL(server).password : ''
const withDb = (url, db) => {
  const u = new URL(url)
  u.pathname = `/${db}`
  return u.toString()
}

/** Rows of `sql` as arrays of text (psql, unaligned). */
function sql(url, query) {
  const r = spawnSync('psql', [url, '-XAtq', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-c', query], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`)
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t'))
}

let seq = 0
function freshDb(name) {
  const db = `v_${name}_${process.pid}_${seq++}`
  sql(server, `CREATE DATABASE ${db}`)
  return withDb(server, db)
}

let top
beforeAll(() => {
  top = mkdtempSync(join(tmpdir(), 'amux-team-'))
})
afterAll(() => removeDir(top))

function cliEnv(home, extra = {}) {
  const env = { ...process.env, HOME: home, AGENT_MUX_CACHE_DIR: join(home, '.amux-cache'), TZ: 'UTC', ...extra }
  for (const k of ['PGPASSWORD', 'PGUSER', 'PGHOST', 'PGPORT', 'PGDATABASE', 'PGPASSFILE']) if (!(k in extra)) delete env[k]
  return env
}

function amux(home, args, extra) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: cliEnv(home, extra), timeout: 120_000 })
}

/** Every session's message rows are exactly the ones its stamp says were pushed, and the cost
 * summary is exactly what its view makes of the usage rows (a sync killed before it made the
 * schema left no table: nothing to check). */
function expectConsistent(url) {
  if (sql(url, "SELECT to_regclass('sessions') IS NULL")[0][0] === 't') return
  const [[bad]] = sql(
    url,
    `SELECT count(*) FROM sessions s WHERE s.pushed_messages <> (SELECT count(*) FROM messages m
       WHERE m.machine = s.machine AND m.unified_id = s.unified_id)
     OR EXISTS (SELECT 1 FROM messages m WHERE m.machine = s.machine AND m.unified_id = s.unified_id AND m.idx >= s.pushed_messages)`,
  )
  expect(bad).toBe('0')
  const [[drift]] = sql(
    url,
    `SELECT count(*) FROM ((TABLE usage_days EXCEPT ALL TABLE usage_days_of)
       UNION ALL (TABLE usage_days_of EXCEPT ALL TABLE usage_days)) d`,
  )
  expect(drift).toBe('0')
}

describe.skipIf(!server)('amux sync', () => {
  it('pushes the demo home, says what it did, and a second run writes nothing', async () => {
    const home = copyDemoHome()
    try {
      const url = freshDb('cli')
      const first = amux(home, ['sync', url, '--machine', 'laptop', '--user', 'ana', '--json'])
      expect(first.status, first.stderr).toBe(0)
      const result = JSON.parse(first.stdout)
      expect(result.sessions).toBeGreaterThan(10)
      expect(result.schemaFrom).toBe(0)
      expect(first.stdout + first.stderr).not.toContain(password)
      const [[users, machines]] = sql(url, 'SELECT string_agg(DISTINCT os_user, \',\'), string_agg(DISTINCT machine, \',\') FROM sessions')
      expect([users, machines]).toEqual(['ana', 'laptop'])
      const total = await withHome(home, () => createClient({ indexChild: false }).sessions.totalCost())
      const [[team]] = sql(url, "SELECT sum(cost_usd) FROM usage WHERE machine = 'laptop'")
      expect(Number(team)).toBeCloseTo(total.totalUsd, 6)

      const again = amux(home, ['sync', url, '--machine', 'laptop', '--user', 'ana'])
      expect(again.status, again.stderr).toBe(0)
      expect(again.stdout).toMatch(/^0 sessions written .* unchanged/)
    } finally {
      removeDir(home)
    }
  })

  it('takes the password from PGPASSWORD or .pgpass, and never prints one, even refused', async () => {
    const home = copyDemoHome()
    try {
      const url = freshDb('pw')
      const bare = new URL(url)
      bare.password = ''
      const byVar = amux(home, ['sync', bare.toString(), '--machine', 'm1', '--json'], { PGPASSWORD: password })
      expect(byVar.status, byVar.stderr).toBe(0)
      expect(byVar.stdout + byVar.stderr).not.toContain(password)

      const pgpass = join(home, '.pgpass')
      writeFileSync(pgpass, `127.0.0.1:${bare.port}:*:amux:${password}\n`)
      chmodSync(pgpass, 0o600)
      const byFile = amux(home, ['sync', bare.toString(), '--machine', 'm2', '--json'])
      expect(byFile.status, byFile.stderr).toBe(0)
      expect(sql(url, 'SELECT machine FROM machines ORDER BY 1')).toEqual([['m1'], ['m2']])

      const wrong = new URL(url)
      wrong.password = 'NotThePassw0rd'
      const refused = amux(home, ['sync', wrong.toString(), '--machine', 'm3'])
      expect(refused.status).toBe(1)
      expect(refused.stderr).toMatch(/^amux: AUTH_ERROR: cannot connect to the team database amux@127\.0\.0\.1:\d+\/v_pw/)
      expect(refused.stdout + refused.stderr).not.toContain('NotThePassw0rd')
      const lib = createClient({ indexChild: false })
      const e = await withHome(home, () => lib.sync(wrong.toString(), { machine: 'm3' })).catch((err) => err)
      expect(e.code).toBe('AUTH_ERROR')
      expect(e.message).not.toContain('NotThePassw0rd')
      expect(sql(url, 'SELECT count(*) FROM machines')).toEqual([['2']])
    } finally {
      removeDir(home)
    }
  })

  it('killed with SIGKILL at several points, then run again: no duplicate, no missing row', async () => {
    const home = join(top, 'killed')
    genHome(home, ['--sessions', '300', '--seed', '5', '--scale', '3'])
    const url = freshDb('kill')
    const env = cliEnv(home)
    // Build the index first, so each sync below spends its time writing to the database.
    expect(amux(home, ['index', 'update', '--quiet']).status).toBe(0)
    const killedAt = []
    for (const ms of [150, 400, 800, 1200, 1800, 2500]) {
      const child = spawn(process.execPath, [bin, 'sync', url, '--machine', 'k'], { env, stdio: 'ignore' })
      const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)))
      const timer = setTimeout(() => child.kill('SIGKILL'), ms)
      const how = await exited
      clearTimeout(timer)
      killedAt.push(how)
      expectConsistent(url)
    }
    expect(killedAt.filter((h) => h === 'SIGKILL').length, String(killedAt)).toBeGreaterThanOrEqual(2)
    const last = amux(home, ['sync', url, '--machine', 'k', '--json'])
    expect(last.status, last.stderr).toBe(0)
    expectConsistent(url)
    const lib = createClient({ indexChild: false })
    const [sessions, total] = await withHome(home, async () => [
      await lib.sessions.listAll({ limit: 100_000 }),
      await lib.sessions.totalCost(),
    ])
    const [[count, distinct]] = sql(url, "SELECT count(*), count(DISTINCT unified_id) FROM sessions WHERE machine = 'k'")
    expect(Number(count)).toBe(sessions.length)
    expect(distinct).toBe(count)
    const [[team]] = sql(url, "SELECT sum(cost_usd) FROM usage WHERE machine = 'k'")
    expect(Number(team)).toBeCloseTo(total.totalUsd, 6)
    // And the messages: as many rows as the sessions' messages, each once.
    const [[rows]] = sql(url, "SELECT count(*) FROM messages WHERE machine = 'k'")
    const [[stamped]] = sql(url, "SELECT sum(pushed_messages) FROM sessions WHERE machine = 'k'")
    expect(rows).toBe(stamped)
  }, 600_000)
})
