// `npm run demo`: agent-mux against the bundled demo home (examples/demo-home), which holds sample
// sessions of all ten agents in their real on-disk layouts (scripts/gen_home.py writes it).
// First the library: one line per agent from `sessions.list`. Then the amux CLI: the main job
// (search), a cross-agent diff of the first two hits, and the cost report by agent. Each CLI
// command is echoed first, so it can be copied. Last, how to start `amux ui` on the demo home.
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const home = fileURLToPath(new URL('./demo-home', import.meta.url))
const amux = fileURLToPath(new URL('../bin/amux.js', import.meta.url))

// The agents' own override variables would point elsewhere than the demo home: drop them. The
// client reads HOME at every call, so setting it here is enough for the library part too.
// (The list is crates/sessions/src/env.rs VARIABLES without HOME, USERPROFILE and TZ.)
const OVERRIDES = [
  'AGENT_MUX_CONFIG_DIR', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME',
  'XDG_CONFIG_HOME', 'OPENCODE_DB', 'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OMP_PROFILE', 'OMP_HOME',
  'OPENCLAW_STATE_DIR', 'OPENCLAW_HOME', 'CLAWDBOT_STATE_DIR', 'HERMES_HOME', 'CURSOR_CONFIG_DIR',
]
for (const name of OVERRIDES) delete process.env[name]
process.env.HOME = home
process.env.USERPROFILE = home
// The index would otherwise go to the demo home's own ~/.cache, inside the checkout: keep it in
// the system's temporary directory unless the caller chose a cache directory.
if (!process.env.AGENT_MUX_CACHE_DIR && !process.env.AGENT_MUX_NO_CACHE) {
  process.env.AGENT_MUX_CACHE_DIR = join(tmpdir(), 'agent-mux-demo-cache')
}

const { createClient, BUILT_IN_AGENTS } = require('../index.js')
const { sessions } = createClient()

console.log('# the library: createClient().sessions.list(agent) for each of the ten agents\n')
const lists = await Promise.all(BUILT_IN_AGENTS.map((agent) => sessions.list(agent)))
const pad = (text, n) => String(text).padEnd(n)
console.log(`${pad('AGENT', 10)}${pad('SESSIONS', 10)}${pad('MESSAGES', 10)}${pad('NEWEST', 12)}NEWEST TITLE`)
BUILT_IN_AGENTS.forEach((agent, i) => {
  const list = lists[i]
  const newest = list[0]
  const messages = list.reduce((n, s) => n + s.messageCount, 0)
  const title = newest ? newest.title.slice(0, 48) + (newest.title.length > 48 ? '…' : '') : '(none)'
  const day = newest ? newest.updatedAt.toISOString().slice(0, 10) : ''
  console.log(`${pad(agent, 10)}${pad(list.length, 10)}${pad(messages, 10)}${pad(day, 12)}${title}`)
})

const hits = await sessions.search({ text: 'kubernetes', limit: 2 })
const commands = [
  ['sessions', 'search', 'kubernetes'],
  ...(hits.length === 2 ? [['sessions', 'diff', hits[0].unifiedId, hits[1].unifiedId]] : []),
  ['cost', 'report', '--group-by', 'agent'],
]

let status = 0
for (const args of commands) {
  console.log(`\n$ HOME=examples/demo-home amux ${args.join(' ')}`)
  const run = spawnSync(process.execPath, [amux, ...args], { stdio: 'inherit', env: process.env })
  status ||= run.status ?? 1
}
console.log('\n# the UI: browse, search, read, diff and cost these sessions in a local web page (Ctrl-C stops it)\n')
console.log('$ HOME=examples/demo-home node bin/amux.js ui        # after install: amux ui')
process.exitCode = status
