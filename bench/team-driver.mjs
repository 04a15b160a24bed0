// The driver's choice, measured: the same rows written with COPY by node-postgres
// (pg + pg-copy-streams) and by the Rust `postgres` crate's `copy_in` (the one `amux sync` uses),
// into an unindexed table, so the figure is the driver's and not the server's index work.
//   node bench/team-driver.mjs <url> <rows-file> <node_modules dir holding pg, pg-copy-streams>
// <rows-file>: COPY text of the messages table (`\copy messages (machine, unified_id, idx, role,
// at, model, text, message) to FILE` after a sync). The npm packages are installed outside the
// repository (they are not its dependencies): `npm install pg pg-copy-streams` in a temp dir.
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const [url, file, modules] = process.argv.slice(2)
const need = createRequire(join(modules, 'x.js'))
const pg = need('pg')
const { from: copyFrom } = need('pg-copy-streams')
const TABLE = 'CREATE TABLE %s (machine text, unified_id text, idx integer, role text, at timestamptz, model text, text text, message json)'

const lines = readFileSync(file, 'utf8').split(/(?<=\n)/)
const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0)

const client = new pg.Client({ connectionString: url })
await client.connect()
await client.query('DROP TABLE IF EXISTS copy_node')
await client.query(TABLE.replace('%s', 'copy_node'))
const t = performance.now()
const cpu0 = process.cpuUsage()
await new Promise((resolve, reject) => {
  const stream = client.query(copyFrom('COPY copy_node FROM STDIN'))
  stream.on('error', reject)
  stream.on('finish', resolve)
  let i = 0
  const pump = () => {
    while (i < lines.length) {
      if (!stream.write(lines[i++])) return stream.once('drain', pump)
    }
    stream.end()
  }
  pump()
})
const nodeMs = performance.now() - t
const nodeCpu = process.cpuUsage(cpu0)
await client.end()

const root = fileURLToPath(new URL('..', import.meta.url))
const rust = spawnSync(process.execPath, [join(root, 'scripts/cargo-test.mjs'), '-p', 'agent-mux-sessions', '--test', 'all', '--', 'team_copy::', '--ignored', '--nocapture'], {
  encoding: 'utf8',
  env: { ...process.env, AGENT_MUX_TEST_PG: url, AGENT_MUX_COPY_ROWS: file },
})
const [, rustWall, rustCpu] = /copy_in: ([\d.]+) ms, client CPU (\d+) ms/.exec(rust.stdout) ?? []
const rustMs = Number(rustWall)
if (!rustMs) throw new Error(`the Rust run failed: ${rust.stdout}${rust.stderr}`)
const mbps = (ms) => ((bytes / 2 ** 20) / (ms / 1000)).toFixed(0)
console.log(`${lines.length} rows, ${(bytes / 2 ** 20).toFixed(0)} MB of COPY text`)
console.log(`node-postgres + pg-copy-streams: ${(nodeMs / 1000).toFixed(2)} s (${mbps(nodeMs)} MB/s), client CPU ${((nodeCpu.user + nodeCpu.system) / 1000).toFixed(0)} ms`)
console.log(`Rust postgres copy_in:           ${(rustMs / 1000).toFixed(2)} s (${mbps(rustMs)} MB/s), client CPU ${rustCpu} ms`)
