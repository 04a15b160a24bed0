// Projects, sub-agents and the recap from the library, the command line and MCP: `project` as a
// filter (a path taken to its project, or a project's name) and a cost group, sub-agents folded
// into the session that started them, and `amux recap`'s JSON and stand-up.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createClient } from '../index.mjs'
import { demoHome, genHome, removeDir, repoRoot, withHome } from './helpers.mjs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { standUp, rows } = require('../cli/lib/recap.js')
const bin = join(repoRoot, 'bin', 'amux.js')

const baseEnv = (home) => {
  const env = { ...process.env, TZ: 'UTC', HOME: home, AGENT_MUX_NO_CACHE: '1' }
  for (const v of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'COPILOT_HOME', 'HERMES_HOME']) delete env[v]
  return env
}

function amux(home, args, cwd = repoRoot) {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: baseEnv(home), cwd })
  return run
}

const sorted = (ids) => [...ids].sort()

/** A home whose Claude sessions ran in a repository (`/…/app`), one of its worktrees, a subdirectory, and a loose directory. */
function repoHome() {
  const root = mkdtempSync(join(tmpdir(), 'amux-projects-'))
  const app = join(root, 'code', 'app')
  const w = (rel, text) => {
    const p = join(root, rel)
    mkdirSync(join(p, '..'), { recursive: true })
    writeFileSync(p, text)
  }
  w('code/app/.git/HEAD', 'ref: refs/heads/main\n')
  w('code/app/.git/worktrees/wt/HEAD', 'ref: refs/heads/login\n')
  w('code/app/.git/worktrees/wt/commondir', '../..\n')
  w('code/wt/.git', `gitdir: ${join(app, '.git', 'worktrees', 'wt')}\n`)
  mkdirSync(join(app, 'web'), { recursive: true })
  mkdirSync(join(root, 'loose'), { recursive: true })
  const session = (n, cwd, day, edit) => {
    const sid = `22222222-2222-4222-8222-00000000000${n}`
    const line = { type: 'user', uuid: `u${n}`, parentUuid: null, timestamp: `${day}T10:00:00.000Z`, cwd, sessionId: sid, version: '2.1.197', message: { role: 'user', content: `refactor the parser, part ${n}` } }
    const lines = [line]
    if (edit) {
      const content = [{ type: 'tool_use', id: `tu${n}`, name: 'Edit', input: { file_path: edit, old_string: 'a', new_string: 'a\nb\nc' } }]
      lines.push({ type: 'assistant', uuid: `a${n}`, parentUuid: `u${n}`, timestamp: `${day}T10:01:00.000Z`, cwd, sessionId: sid, version: '2.1.197', message: { id: `m${n}`, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content } })
    }
    w(`home/.claude/projects/-p/${sid}.jsonl`, lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
    return `claude:${sid}`
  }
  const ids = {
    root: session(1, app, '2026-03-01'),
    web: session(2, join(app, 'web'), '2026-03-02'),
    worktree: session(3, join(root, 'code', 'wt'), '2026-03-03', join(root, 'code', 'wt', 'parse.ts')),
    loose: session(4, join(root, 'loose'), '2026-03-04'),
  }
  return { root, app, home: join(root, 'home'), ids }
}

describe('projects', () => {
  let t
  beforeAll(() => {
    t = repoHome()
  })
  afterAll(() => removeDir(t.root))

  it('gives each session its repository as its project, in the library and the CLI', async () => {
    const all = await withHome(t.home, () => createClient({ cacheDir: false }).sessions.listAll({ limit: 100 }))
    const projectOf = Object.fromEntries(all.map((s) => [s.unifiedId, s.project]))
    expect(projectOf[t.ids.root]).toBe(t.app)
    expect(projectOf[t.ids.web]).toBe(t.app)
    expect(projectOf[t.ids.worktree]).toBe(t.app)
    expect(projectOf[t.ids.loose]).toBe(join(t.root, 'loose'))
    const inApp = sorted([t.ids.root, t.ids.web, t.ids.worktree])
    // A relative path from inside the worktree, an absolute subdirectory, and the project's name.
    for (const [project, cwd] of [['.', join(t.root, 'code', 'wt')], [join(t.app, 'web'), repoRoot], ['app', repoRoot]]) {
      const run = amux(t.home, ['sessions', 'list', '--project', project, '--json'], cwd)
      expect(run.stderr).toBe('')
      expect(sorted(JSON.parse(run.stdout).map((s) => s.unifiedId))).toEqual(inApp)
    }
    const found = await withHome(t.home, () => createClient({ cacheDir: false }).sessions.search({ text: 'parser', project: 'app' }))
    expect(sorted(found.map((s) => s.unifiedId))).toEqual(inApp)
  })

  it('groups cost by project and refuses a relative path in the library', async () => {
    const run = amux(t.home, ['cost', 'report', '--group-by', 'project', '--json'])
    expect(run.status).toBe(0)
    const groups = JSON.parse(run.stdout).breakdowns
    expect(groups[t.app].sessionCount).toBe(3)
    expect(groups[join(t.root, 'loose')].sessionCount).toBe(1)
    const err = await withHome(t.home, () => createClient({ cacheDir: false }).sessions.listAll({ project: 'code/app' }).catch((e) => e))
    expect(err.code).toBe('VALIDATION_ERROR')
    expect(err.message).toMatch(/project/)
  })

  it('recaps the period per project, as JSON and as a stand-up', async () => {
    const run = amux(t.home, ['recap', '--since', '2026-03-02', '--json'])
    expect(run.stderr).toBe('')
    const recap = JSON.parse(run.stdout)
    expect(recap.projects.map((p) => p.name)).toEqual(['loose', 'app'])
    const app = recap.projects[1]
    expect(app.project).toBe(t.app)
    expect(app.agents).toEqual(['claude'])
    // The root's session was last active before the period.
    expect(app.sessions.map((s) => s.unifiedId)).toEqual([t.ids.worktree, t.ids.web])
    expect(recap.sessionCount).toBe(3)
    // The worktree's session edited one file, adding lines to it.
    expect(app.files).toEqual([expect.objectContaining({ path: join(t.root, 'code', 'wt', 'parse.ts'), edits: 1, sessionCount: 1, sessions: [t.ids.worktree] })])
    expect(app.files[0].added).toBeGreaterThan(0)
    expect([app.linesAdded, app.linesRemoved]).toEqual([app.files[0].added, app.files[0].removed])
    // A file counts its sessions whether or not it names them.
    const unnamed = JSON.parse(amux(t.home, ['recap', '--since', '2026-03-02', '--sessions-per-file', '0', '--json']).stdout)
    expect(unnamed.projects[1].files[0]).toEqual(expect.objectContaining({ sessionCount: 1, sessions: [] }))
    const lib = await withHome(t.home, () => createClient({ cacheDir: false }).sessions.recap({ since: new Date('2026-03-02'), project: 'app' }))
    expect(lib.projects.map((p) => p.project)).toEqual([t.app])
    expect(lib.since).toBeInstanceOf(Date)
    expect(lib.projects[0].sessions[0].updatedAt).toBeInstanceOf(Date)

    const paint = (_, text) => String(text)
    const text = standUp(lib, { paint, width: 100, now: Date.parse('2026-03-05T00:00:00Z'), tty: true })
    expect(text).toMatch(/^2 sessions in 1 project since /)
    expect(text).toContain('refactor the parser, part 3')
    expect(text).toContain(t.app)
    expect(text).toContain(`1 file edited (+${lib.projects[0].files[0].added}`)
    expect(rows(lib).map((r) => r.slice(0, 3))).toEqual([
      [t.app, 'session', t.ids.worktree],
      [t.app, 'session', t.ids.web],
      [t.app, 'file', join(t.root, 'code', 'wt', 'parse.ts')],
    ])
    const piped = amux(t.home, ['recap', '--since', '2026-03-02'])
    expect(piped.stdout.split('\n').filter(Boolean)).toHaveLength(4)
    const none = amux(t.home, ['recap', '--since', '2030-01-01', '--json'])
    expect(JSON.parse(none.stdout).projects).toEqual([])
  })
})

describe('the demo home through MCP', () => {
  let mcp
  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env: baseEnv(demoHome), stderr: 'pipe' })
    mcp = new Client({ name: 'amux-projects-test', version: '1.0.0' })
    await mcp.connect(transport)
  })
  afterAll(async () => {
    await mcp?.close()
  })

  it('filters list_sessions by a project name and recaps recent_activity per project', async () => {
    const all = await withHome(demoHome, () => createClient({ cacheDir: false }).sessions.listAll({ limit: 1000 }))
    const named = sorted(all.filter((s) => s.project?.endsWith('/agent-mux')).map((s) => s.unifiedId))
    expect(named.length).toBeGreaterThan(0)
    expect(named.length).toBeLessThan(all.length)
    const tool = await mcp.callTool({ name: 'list_sessions', arguments: { project: 'agent-mux', limit: 1000 } })
    expect(tool.isError).toBeFalsy()
    expect(sorted(tool.structuredContent.sessions.map((s) => s.id))).toEqual(named)
    const recent = await mcp.callTool({ name: 'recent_activity', arguments: { since: '2000-01-01', project: 'agent-mux' } })
    expect(recent.isError).toBeFalsy()
    const r = recent.structuredContent
    expect(r.projects).toHaveLength(1)
    expect(sorted(r.projects[0].sessions.map((s) => s.id))).toEqual(named)
    expect(recent.content[0].text).toContain('## agent-mux')
  })
})

describe('sub-agents on a generated home', () => {
  let home
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'amux-subagents-'))
    genHome(home, ['--sessions', '9', '--seed', '5', '--scale', '1', '--agents', 'claude', '--claude-branches', '3'])
  })
  afterAll(() => removeDir(home))

  it("counts a Claude session's sub-agent transcripts as its children and still reads them into get", async () => {
    const client = createClient({ cacheDir: false })
    const all = await withHome(home, () => client.sessions.listAll({ limit: 1000 }))
    const parents = all.filter((s) => s.children)
    // One session in three (i % 3 == 1) of nine gets a sub-agent transcript.
    expect(parents).toHaveLength(3)
    expect(parents.every((s) => s.children === 1)).toBe(true)
    const s = await withHome(home, () => client.sessions.get(parents[0].agent, parents[0].sessionId))
    expect(s.messages.some((m) => m.subagent)).toBe(true)
    const run = amux(home, ['sessions', 'list', '--subagents', '--json', '--limit', '1000'])
    expect(JSON.parse(run.stdout)).toHaveLength(all.length)
  })
})
