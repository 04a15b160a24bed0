#!/usr/bin/env node
// A throw-away PostgreSQL cluster for the team database's tests and benchmark: initdb in a
// temporary directory, a server on a free port of 127.0.0.1, a password-protected superuser.
// PostgreSQL refuses to run as root: as root, the cluster belongs to `nobody` (AGENT_MUX_PG_USER
// names another user), whose process runs it.
//
//   node scripts/pg.mjs start [--durable]   prints `<url>\n<dir>`; the server keeps running
//   node scripts/pg.mjs stop <dir>          stops it and removes the directory
//
// Without --durable the cluster trades durability for speed (fsync off), which tests want and a
// benchmark must not. `startCluster()` / `stopCluster()` are the same for JS callers (vitest's
// global setup). A machine without PostgreSQL's binaries gets `null` from `findBin()`.
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'

/** The directory holding initdb, pg_ctl and postgres: from PATH, else Debian's versioned one. */
export function findBin() {
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' })
  if (which.status === 0 && which.stdout.trim()) return dirname(realpathSync(which.stdout.trim()))
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length ? join(root, versions[0], 'bin') : null
}

/** uid and gid to run the server as: ours, or as root another user's. */
function owner() {
  if (process.getuid() !== 0) return null
  const name = process.env.AGENT_MUX_PG_USER || 'nobody'
  const id = (flag) => {
    const r = spawnSync('id', [flag, name], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`user ${name} does not exist (AGENT_MUX_PG_USER)`)
    return Number(r.stdout.trim())
  }
  return { uid: id('-u'), gid: id('-g') }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

function run(bin, args, who, what) {
  const r = spawnSync(bin, args, { encoding: 'utf8', ...(who || {}), env: { ...process.env, LC_ALL: 'C' } })
  if (r.status !== 0) throw new Error(`${what} failed (${r.error || r.status}): ${r.stderr || r.stdout}`)
  return r.stdout
}

/**
 * Starts a cluster; resolves to `{ url, dir, password }` (`url` holds the password: tests only).
 * `durable`: keep fsync and synchronous commit (for measurements).
 */
export async function startCluster({ durable = false } = {}) {
  const bin = findBin()
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb in PATH or /usr/lib/postgresql/*/bin)')
  const who = owner()
  const dir = mkdtempSync(join(tmpdir(), 'amux-pg-'))
  const data = join(dir, 'data')
  const password = randomBytes(12).toString('hex')
  const pwfile = join(dir, 'pw')
  writeFileSync(pwfile, password + '\n', { mode: 0o600 })
  if (who) {
    chownSync(dir, who.uid, who.gid)
    chownSync(pwfile, who.uid, who.gid)
  }
  chmodSync(dir, 0o700)
  run(join(bin, 'initdb'), ['-D', data, '-U', 'amux', '--pwfile', pwfile, '--auth-host=scram-sha-256',
    '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], who, 'initdb')
  rmSync(pwfile)
  const port = await freePort()
  const opts = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-k ${dir}`, '-c max_connections=50']
  if (!durable) opts.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off')
  try {
    run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o', opts.join(' '), 'start'],
      who, 'pg_ctl start')
    run(join(bin, 'createdb'), ['-h', dir, '-p', String(port), '-U', 'amux', 'amux'], who, 'createdb')
  } catch (e) {
    stopCluster(dir)
    throw e
  }
  return { url: `postgres://amux:${password}@127.0.0.1:${port}/amux`, dir, password, port }
}

/** Stops the cluster started in `dir` and removes it. */
export function stopCluster(dir) {
  const bin = findBin()
  const data = join(dir, 'data')
  if (bin && existsSync(data)) {
    spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...(owner() || {}), stdio: 'ignore' })
  }
  rmSync(dir, { recursive: true, force: true })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cmd, arg] = process.argv.slice(2)
  if (cmd === 'start') {
    const c = await startCluster({ durable: process.argv.includes('--durable') })
    process.stdout.write(`${c.url}\n${c.dir}\n`)
  } else if (cmd === 'stop' && arg) {
    stopCluster(arg)
  } else {
    process.stderr.write('usage: node scripts/pg.mjs start [--durable] | stop <dir>\n')
    process.exit(2)
  }
}
