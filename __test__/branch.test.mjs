// The git branch filter, from the parameters' table to every front end: `amux … --branch`, the MCP
// tools' `branch` and the UI's `branch=` find the same sessions as the library's `branch` option,
// on the demo home, whose Claude Code and Copilot CLI sessions record the branch they ran on.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createClient } from '../index.mjs'
import { startUi } from '../ui/server/index.js'
import { repoRoot } from './helpers.mjs'
import { http } from './ui-helpers.mjs'

const bin = join(repoRoot, 'bin', 'amux.js')
const home = join(repoRoot, 'examples', 'demo-home')

let env
let mcp
let ui
let savedHome

beforeAll(async () => {
  env = { ...process.env, TZ: 'UTC', HOME: home, AGENT_MUX_NO_CACHE: '1' }
  for (const v of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'COPILOT_HOME', 'HERMES_HOME']) delete env[v]
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'pipe' })
  mcp = new Client({ name: 'amux-branch-test', version: '1.0.0' })
  await mcp.connect(transport)
  savedHome = process.env.HOME
  process.env.HOME = home
  ui = await startUi({ client: createClient({ cacheDir: false }) })
})

afterAll(async () => {
  await mcp?.close()
  await ui?.close()
  process.env.HOME = savedHome
})

const sorted = (ids) => [...ids].sort()

async function everyFrontEnd(branch) {
  const library = await createClient({ cacheDir: false }).sessions.listAll({ branch, limit: 1000 })
  const run = spawnSync(process.execPath, [bin, 'sessions', 'list', '--branch', branch, '--limit', '1000', '--json'], {
    encoding: 'utf8',
    env,
  })
  expect(run.stderr).toBe('')
  const cli = JSON.parse(run.stdout).map((s) => s.unifiedId)
  const tool = await mcp.callTool({ name: 'list_sessions', arguments: { branch, limit: 1000 } })
  expect(tool.isError).toBeFalsy()
  const viaMcp = tool.structuredContent.sessions.map((s) => s.id)
  const res = await http(ui.port, `/api/sessions?branch=${encodeURIComponent(branch)}&limit=500`, {
    headers: { Authorization: `token ${ui.token}` },
  })
  expect(res.status).toBe(200)
  const viaUi = JSON.parse(res.body).sessions.map((s) => s.unifiedId)
  return { library, cli: sorted(cli), mcp: sorted(viaMcp), ui: sorted(viaUi) }
}

describe('--branch / branch', () => {
  it('finds the same sessions, all on that branch, in the library, the CLI, MCP and the UI', async () => {
    const all = await createClient({ cacheDir: false }).sessions.listAll({ limit: 1000 })
    const onMain = sorted(all.filter((s) => s.gitBranch === 'main').map((s) => s.unifiedId))
    // The demo home's Claude Code and Copilot CLI sessions name their branch; the others do not.
    expect(new Set(onMain.map((id) => id.split(':')[0]))).toEqual(new Set(['claude', 'copilot']))
    expect(onMain.length).toBeLessThan(all.length)
    const got = await everyFrontEnd('main')
    expect(sorted(got.library.map((s) => s.unifiedId))).toEqual(onMain)
    expect(got.library.every((s) => s.gitBranch === 'main')).toBe(true)
    expect(got.cli).toEqual(onMain)
    expect(got.mcp).toEqual(onMain)
    expect(got.ui).toEqual(onMain)
  })

  it('matches the branch exactly', async () => {
    const got = await everyFrontEnd('mai')
    expect([got.library.length, got.cli, got.mcp, got.ui]).toEqual([0, [], [], []])
  })
})
