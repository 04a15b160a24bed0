// The README and the pages of docs/ are a newcomer's first test: their runnable examples, the
// README's main-job output, every `$ amux …` example, `npm run demo`'s script, the storage table,
// the price snapshot and every relative link are checked against the code and the bundled demo
// home here, so a change that makes the docs wrong fails a test.
import { describe, it, expect } from 'vitest'
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { repoRoot, demoHome, hostPlatform, indexPath } from './helpers.mjs'
import { inTerminal, ptyAvailable } from './tty.mjs'

const require = createRequire(import.meta.url)
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
// Every page a reader walks: the README, then docs/*.md, by path from the repository's root.
const pages = new Map([['README.md', readme]])
for (const name of readdirSync(join(repoRoot, 'docs')).filter((n) => n.endsWith('.md')).sort()) {
  pages.set(`docs/${name}`, readFileSync(join(repoRoot, 'docs', name), 'utf8'))
}
// A page whose js blocks run, in order, as one script (the README's are always run).
const RUNNABLE = '<!-- runnable:'
const runnable = [...pages].filter(([path, text]) => path === 'README.md' || text.includes(RUNNABLE)).map(([path]) => path)
const binary = join(repoRoot, `agent-mux.${hostPlatform()}.node`)

// Every variable a reader honours (crates/sessions/src/env.rs VARIABLES) except HOME and TZ: any of
// them set in the developer's shell would send a reader away from the demo home.
const envSource = readFileSync(join(repoRoot, 'crates/sessions/src/env.rs'), 'utf8')
const VARIABLES = [...envSource.slice(envSource.indexOf('VARIABLES'), envSource.indexOf('];')).matchAll(/"([A-Z_]+)"/g)].map((m) => m[1])

function demoEnv(extra = {}) {
  const env = { ...process.env, TZ: 'UTC' }
  for (const name of [...VARIABLES, 'NO_COLOR', 'FORCE_COLOR', 'COLUMNS']) if (name !== 'TZ') delete env[name]
  // Search ranks newer sessions up: the README shows the demo home as seen on this day. The test
  // run's private index directory (__test__/cache-setup.mjs) stays, or the index would be written
  // under the demo home's ~/.cache.
  return { ...env, HOME: demoHome, AGENT_MUX_NOW: '2026-11-23T00:00:00Z', AGENT_MUX_CACHE_DIR: process.env.AGENT_MUX_CACHE_DIR, ...extra }
}

function node(args, env) {
  return spawnSync(process.execPath, args, { encoding: 'utf8', env, cwd: repoRoot, timeout: 120_000 })
}

/** The body of the `## <title>` section of a page's text (the README's unless told). */
function section(title, text = readme) {
  const start = text.indexOf(`\n## ${title}`)
  expect(start).toBeGreaterThan(0)
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

const fenced = (text, lang) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1])

describe('README', () => {
  it('the pages whose examples are runnable are the README and docs/api.md at least', () => {
    expect(runnable).toContain('README.md')
    expect(runnable).toContain('docs/api.md')
  })

  it('no `// prints:` comment is outside a page that runs it', () => {
    for (const [path, text] of pages) {
      if (!runnable.includes(path)) expect(text, path).not.toContain('// prints:')
    }
  })

  it.for(runnable)('the js examples of %s run against the demo home and print what their `// prints:` comments say', (path, ctx) => {
    try { require.resolve(binary) } catch { ctx.skip() }
    const text = pages.get(path)
    const blocks = fenced(text, 'js')
    expect(blocks.length).toBeGreaterThan(0)
    const code = blocks.join('\n').replaceAll("require('@a5c-ai/agent-mux')", `require(${JSON.stringify(join(repoRoot, 'index.js'))})`)
    const expected = [...code.matchAll(/\/\/ prints: (.*)$/gm)].map((m) => m[1])
    // every `// prints:` of the page is in a block that runs
    expect(expected.length).toBe(text.split('// prints: ').length - 1)
    expect(expected.length).toBeGreaterThan(0)
    const dir = mkdtempSync(join(tmpdir(), 'amux-readme-'))
    try {
      const script = join(dir, 'examples.cjs')
      writeFileSync(script, `(async () => {\n${code}\n})().catch((e) => { console.error(e); process.exit(1) })\n`)
      const run = node([script], demoEnv())
      expect(run.stderr).toBe('')
      expect(run.status).toBe(0)
      expect(run.stdout.trimEnd().split('\n')).toEqual(expected)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the main job's output in the README is what the CLI prints on a terminal (ages aside)", (ctx) => {
    try { require.resolve(binary) } catch { ctx.skip() }
    if (!ptyAvailable) ctx.skip()
    const head = readme.slice(0, readme.indexOf('\n## '))
    expect(head).toContain('HOME=examples/demo-home node bin/amux.js sessions search kubernetes')
    const shown = fenced(head, 'text')[0].trimEnd().split('\n')
    // at 100 columns without colour, as the README shows it
    const run = inTerminal(process.execPath, ['bin/amux.js', 'sessions', 'search', 'kubernetes'], {
      cols: 100,
      env: demoEnv({ NO_COLOR: '1' }),
      cwd: repoRoot,
    })
    expect(run.status).toBe(0)
    const actual = run.stdout.trimEnd().split('\n')
    expect(actual.length).toBe(shown.length)
    // Rows: rank, unified id, score and cost must agree; the age ("2w ago") moves with the clock
    // and may change the width of the title column, so neither is compared. Snippets and the
    // count line must be identical.
    const key = (line) => {
      const m = /^(\d+)\s+(\S+)\s+.*?\s(\d\.\d\d)\s+(\$\S+)\s/.exec(line)
      return m ? m.slice(1).join(' ') : line.trim()
    }
    expect(actual.slice(1).map(key)).toEqual(shown.slice(1).map(key))
    expect(shown.length).toBeGreaterThan(3)
  })

  it("every `$ amux …` example of the README and docs/ is what amux prints on a 100-column terminal (ages aside)", (ctx) => {
    try { require.resolve(binary) } catch { ctx.skip() }
    if (!ptyAvailable) ctx.skip()
    const examples = [...pages].flatMap(([path, text]) =>
      fenced(text, 'text')
        .filter((b) => b.startsWith('$ amux '))
        .flatMap((block) => block.trimEnd().split(/\n\n(?=\$ amux )/))
        .map((example) => [path, example]),
    )
    expect(examples.filter(([path]) => path === 'README.md').length).toBeGreaterThanOrEqual(2)
    expect(examples.filter(([path]) => path === 'docs/cli.md').length).toBeGreaterThanOrEqual(4)
    // ages move with the clock, and with them the width of the date column
    const normal = (text) =>
      text
        .trimEnd()
        .split('\n')
        .map((l) => l.replace(/\b(just now|\d+(m|h|d|w|mo|y) ago)\b/g, 'AGE').replace(/ +/g, ' '))
    for (const [path, example] of examples) {
      const [command, ...shown] = example.split('\n')
      const line = command.slice(2).replace(/^amux /, 'node bin/amux.js ')
      const env = demoEnv({ NO_COLOR: '1', PAGER: 'cat' })
      const run = line.includes('|')
        ? spawnSync('sh', ['-c', line], { encoding: 'utf8', env, cwd: repoRoot })
        : inTerminal(process.execPath, line.split(' ').slice(1), { cols: 100, env, cwd: repoRoot })
      expect(normal(run.stdout + run.stderr), `${path}: ${command}`).toEqual(normal(shown.join('\n')))
    }
  })

  it('examples/demo.mjs (npm run demo) shows every agent with its real session count, then runs the CLI', async (ctx) => {
    try { require.resolve(binary) } catch { ctx.skip() }
    expect(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts.demo).toMatch(/node examples\/demo\.mjs$/)
    const run = node(['examples/demo.mjs'], { ...demoEnv(), HOME: '/nonexistent', COLUMNS: '100' })
    // piped, amux prints its tab-separated forms and sends the cost report's notes to stderr
    expect(run.stderr.split('\n').filter((l) => l && !l.startsWith('note: '))).toEqual([])
    expect(run.status).toBe(0)
    const { createClient, BUILT_IN_AGENTS } = require('../index.js')
    const saved = process.env.HOME
    process.env.HOME = demoHome
    let lists
    try {
      lists = await Promise.all(BUILT_IN_AGENTS.map((a) => createClient().sessions.list(a)))
    } finally {
      process.env.HOME = saved
    }
    BUILT_IN_AGENTS.forEach((agent, i) => {
      expect(lists[i].length).toBeGreaterThan(0)
      expect(run.stdout).toMatch(new RegExp(`^${agent}\\s+${lists[i].length}\\s`, 'm'))
    })
    for (const command of ['sessions search kubernetes', 'sessions diff ', 'cost report --group-by agent']) {
      expect(run.stdout).toContain(`$ HOME=examples/demo-home amux ${command}`)
    }
    expect(run.stdout).toMatch(/^TOTAL\s+30\s/m)
    // It ends by saying how to start the UI on the demo home.
    expect(run.stdout.trimEnd().split('\n').pop()).toMatch(/^\$ HOME=examples\/demo-home node bin\/amux\.js ui\b/)
  })

  it('running the demo never writes the index under the demo home (it goes to the cache dir)', (ctx) => {
    try { require.resolve(binary) } catch { ctx.skip() }
    // A README command run by hand (HOME=examples/demo-home amux …, git-ignored) may have left one.
    rmSync(join(demoHome, '.cache'), { recursive: true, force: true })
    const run = node(['bin/amux.js', 'sessions', 'search', 'kubernetes', '--json'], demoEnv())
    expect(run.status).toBe(0)
    expect(indexPath(process.env.AGENT_MUX_CACHE_DIR, 'sqlite')).not.toBe(null)
    expect(existsSync(join(demoHome, '.cache'))).toBe(false)
  })

  it('the storage table names, for each agent, only variables its reader really reads', () => {
    const modules = {
      'Claude Code': ['claude/mod.rs'],
      'Codex CLI': ['codex/mod.rs'],
      'Gemini CLI': ['gemini/mod.rs'],
      'Copilot CLI': ['copilot/mod.rs'],
      'Cursor (cursor-agent CLI)': ['cursor/mod.rs'],
      OpenCode: ['opencode/mod.rs'],
      Pi: ['pi/mod.rs'],
      'omp (Oh My Pi)': ['omp/mod.rs'],
      OpenClaw: ['openclaw/mod.rs'],
      Hermes: ['hermes/mod.rs'],
    }
    const rows = section('Where sessions are read from', pages.get('docs/formats.md'))
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| agent') && !l.startsWith('|---'))
      .map((l) => l.split(' | '))
    expect(rows.map((r) => r[0].slice(2))).toEqual(Object.keys(modules))
    for (const [label, , envColumn] of rows) {
      const source = modules[label.slice(2)].map((f) => readFileSync(join(repoRoot, 'crates/sessions/src/agents', f), 'utf8')).join('\n')
      const named = [...envColumn.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])
      expect(named.length).toBeGreaterThan(0)
      for (const name of named) {
        // read by this reader (or, for omp, named as deliberately not applied) and in the snapshot
        if (name.startsWith('PI_CODING_AGENT_') && label.includes('omp')) continue
        expect(source, `${label}: ${name}`).toContain(`"${name}"`)
        expect(VARIABLES).toContain(name)
      }
    }
  })

  it("the Install section's targets table is the release workflow's build and test matrix", () => {
    const workflow = readFileSync(join(repoRoot, '.github', 'workflows', 'release.yml'), 'utf8')
    const entries = [...workflow.matchAll(/^ {10}- \{ (.*) \}$/gm)].map((m) => Object.fromEntries(m[1].split(', ').map((kv) => kv.split(': '))))
    const builds = entries.filter((e) => e.target)
    const tests = entries.filter((e) => e.node)
    const rows = section('Install').split('\n').filter((l) => /^\| `/.test(l)).map((l) => l.split(' | '))
    const targets = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).napi.targets
    expect(builds.map((b) => b.target).sort()).toEqual([...targets].sort())
    expect(rows.map((r) => r[0].slice(3, -1)).sort()).toEqual(builds.map((b) => b.platform).sort())
    for (const [platform, , builtOn, testedOn] of rows.map((r) => [r[0].slice(3, -1), ...r.slice(1)])) {
      const build = builds.find((b) => b.platform === platform)
      expect(builtOn, platform).toContain(`\`${build.host}\``)
      const runs = tests.filter((t) => t.platform === platform)
      expect(runs.length, platform).toBeGreaterThan(0)
      for (const run of runs) {
        expect(testedOn, platform).toContain(`\`${run.host}\`:`)
        const node = run.alpine ? `Node ${run.node} in Docker \`node:${run.node}-alpine\`` : `Node ${run.node}${run.cargo === 'true' ? ' with cargo test' : ''}`
        expect(testedOn, platform).toContain(node)
      }
      expect(testedOn.match(/Node \d+/g).length, platform).toBe(runs.length)
    }
  })

  it('states the price snapshot that is really embedded, in the README and docs/cost.md', () => {
    const prices = JSON.parse(readFileSync(join(repoRoot, 'crates/sessions/src/cost/prices.json'), 'utf8'))
    for (const cost of [section('Cost'), pages.get('docs/cost.md')]) {
      expect(cost).toContain(`litellm ${prices.litellmVersion}`)
      expect(cost).toContain(`snapshot of ${prices.generated}`)
      expect(cost).toContain(`${Object.keys(prices.models).length} models`)
    }
  })

  it('the README links every page of docs/, and each page says at its top what it covers', () => {
    for (const path of [...pages.keys()].filter((p) => p.startsWith('docs/'))) {
      expect(readme, path).toContain(`](${path})`)
      const text = pages.get(path)
      expect(text.startsWith('# '), path).toBe(true)
      expect(text.split('\n')[2], path).toMatch(/^What this page covers: /)
    }
  })

  it('every relative link of the README and docs/ names a file that exists, and a heading there', () => {
    // GitHub's anchors: the heading in lower case, without punctuation, spaces as dashes
    const slug = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replaceAll(' ', '-')
    const anchors = (text) => new Set([...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1])))
    let links = 0
    for (const [path, text] of pages) {
      for (const [, target] of text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue
        const [file, anchor] = target.split('#')
        const resolved = file ? join(dirname(path), file) : path
        expect(existsSync(join(repoRoot, resolved)), `${path}: ${target}`).toBe(true)
        if (anchor) {
          const heading = resolved.endsWith('.md') ? anchors(readFileSync(join(repoRoot, resolved), 'utf8')) : new Set()
          expect(heading.has(anchor), `${path}: ${target}`).toBe(true)
        }
        links++
      }
    }
    expect(links).toBeGreaterThan(20)
  })
})
