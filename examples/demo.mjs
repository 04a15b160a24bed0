// `npm run demo`: the amux CLI against the bundled demo home (examples/demo-home), which holds
// sample sessions of all ten agents in their real on-disk layouts. Each command is echoed first.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const home = fileURLToPath(new URL('./demo-home', import.meta.url))
const amux = fileURLToPath(new URL('../bin/amux.js', import.meta.url))
const commands = [
  ['sessions', 'list', 'claude'],
  ['sessions', 'search', 'kubernetes'],
  ['cost', 'report', '--group-by', 'agent'],
]

// The agents' own override variables would point elsewhere than the demo home: drop them.
const env = { ...process.env, HOME: home, USERPROFILE: home }
for (const name of [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME', 'AGENT_MUX_CONFIG_DIR',
]) delete env[name]

let status = 0
for (const args of commands) {
  console.log(`\n$ HOME=examples/demo-home amux ${args.join(' ')}`)
  const run = spawnSync(process.execPath, [amux, ...args], { stdio: 'inherit', env })
  status ||= run.status ?? 1
}
process.exitCode = status
