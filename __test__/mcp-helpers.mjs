// Shared by the suites of `amux mcp`: the server run for real (`node bin/amux.js mcp` as a child
// process, HOME at the home under test) and spoken to by the MCP SDK's own Client over stdio.
import { join } from 'node:path'
import { expect } from 'vitest'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { repoRoot } from './helpers.mjs'

export const bin = join(repoRoot, 'bin', 'amux.js')

// Variables that would send an agent's reader somewhere other than the home under test, or name
// the session of an agent the tests run in (which the server would take for its caller's own).
const STRAY = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME',
  'AGENT_MUX_CONFIG_DIR', 'USERPROFILE', 'XDG_CONFIG_HOME', 'OMP_PROFILE', 'OMP_HOME', 'OPENCLAW_HOME',
  'CLAWDBOT_STATE_DIR', 'CURSOR_CONFIG_DIR', 'CLAUDE_CODE_SESSION_ID', 'CODEX_THREAD_ID',
]

/** The environment of a server over `home`, with `extra` variables set. */
export function serverEnv(home, extra = {}) {
  const env = { ...process.env, TZ: 'UTC', HOME: home }
  for (const name of STRAY) delete env[name]
  return { ...env, ...extra }
}

/**
 * A server over `home` (`args` after `amux mcp`, started in `cwd` with `env` added), and an SDK
 * client connected to it; `roots`: the client's MCP roots (file:// URIs), when it offers any.
 * `stderr()` is what the server logged so far.
 */
export async function connect(home, { args = [], cwd, env = {}, roots } = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', ...args], cwd, env: serverEnv(home, env), stderr: 'pipe' })
  let stderr = ''
  transport.stderr.on('data', (d) => (stderr += d))
  const capabilities = roots ? { roots: { listChanged: true } } : {}
  const client = new Client({ name: 'amux-mcp-test', version: '1.0.0' }, { capabilities })
  if (roots) client.setRequestHandler('roots/list', () => ({ roots: roots.map((uri) => ({ uri })) }))
  await client.connect(transport)
  return { client, stderr: () => stderr, close: () => client.close() }
}

/** The one text block of a tool result. */
export function textOf(result) {
  expect(result.content).toHaveLength(1)
  expect(result.content[0].type).toBe('text')
  return result.content[0].text
}
