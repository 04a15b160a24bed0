#!/usr/bin/env node
'use strict'
// amux: the command line of @a5c-ai/agent-mux (spec section 7). It is the package's first user and
// uses nothing but the public API (`require('../index.js')`): every rule about sessions lives there.
//
// Output contract: results on stdout. On a terminal they are drawn for a person (tables that fit
// the width, short ids, colour, a pager for long transcripts); piped, they are for scripts (one
// tab-separated line per row, values in full, no header or footer: bin/lib/tsv.js, and the API's
// `tsv.list` for session lists); with --json, the API's result as JSON and nothing else.
// Progress, notes on a pipe, and errors go to stderr.
// Exit status: 0 success (also "nothing matched"); 1 the call failed, with one line
// `amux: <CODE>: <message>`; 2 the command line was wrong (unknown command, option, agent or
// value, an ambiguous id prefix), with the same one line.

const { Command, Option, UsageError, PrintAndExit } = require('./lib/cli.js')
const { createClient, AgentMuxError, BUILT_IN_AGENTS } = require('../index.js')
const { version } = require('../package.json')
const args = require('./lib/args.js')
const { colorEnabled, painter, terminalWidth, visibleWidth } = require('./lib/format.js')
const render = require('./lib/render.js')
const tsv = require('./lib/tsv.js')
const ids = require('./lib/ids.js')
// Only `sessions show` on a terminal needs these: loaded then, not at every start.
const transcript = () => require('./lib/transcript.js')
const pager = () => require('./lib/pager.js')
const { withProgress, report } = require('./lib/progress.js')

const EXIT_ERROR = 1
const EXIT_USAGE = 2

// How to draw for stdout: `tty` false means a pipe or a file, which gets the tsv forms.
function view({ wide = false } = {}) {
  const tty = Boolean(process.stdout.isTTY)
  return {
    tty,
    wide,
    width: terminalWidth(process.stdout),
    height: process.stdout.rows > 0 ? process.stdout.rows : 24,
    paint: painter(tty && colorEnabled(process.stdout)),
    now: Date.now(),
  }
}

function print(text) {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

function printJson(value) {
  // Dates serialise as ISO 8601 strings, as in the API's own json export.
  print(JSON.stringify(value, null, 2))
}

// search() and totalCost() answer an unknown agent with "nothing"; at a prompt a typo deserves an
// error instead (exit 2, like any mistake on the command line), so the CLI checks names first.
function knownAgent(agent) {
  if (agent !== undefined && !BUILT_IN_AGENTS.includes(agent)) {
    throw new AgentMuxError('AGENT_NOT_FOUND', `unknown agent '${agent}'`)
  }
  return agent
}

// Only the options the user gave, so the API's own defaults (limit 100/50, sort) apply otherwise.
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined))
}

// The API's default limits (session-manager spec), which the terminal's count line needs to know.
const LIST_LIMIT = 100
const SEARCH_LIMIT = 50

/**
 * At most `limit` sessions, and whether the limit left any out: `call(n)` is asked for one more
 * than is shown, which costs one session where the API would otherwise need to count them all.
 */
async function upTo(limit, call) {
  const sessions = await call(limit + 1)
  return { sessions: sessions.slice(0, limit), more: sessions.length > limit }
}

// The index reports its progress for the bar drawn under a long call (bin/lib/progress.js).
const client = () => createClient({ onProgress: report })
const sessionsApi = () => client().sessions

/**
 * What the SESSION column shows on a terminal: each id's shortest unique prefix among all of its
 * agent's sessions (not only those shown), so it can be pasted into show, export or diff.
 * `universe` (agent → every id) when the caller already has it, else it is listed.
 */
async function shortIds(api, sessions, universe) {
  universe ??= await ids.idsByAgent(api, sessions.map((s) => s.agent))
  const short = new Map()
  for (const [agent, all] of universe) {
    const own = sessions.filter((s) => s.agent === agent).map((s) => s.sessionId)
    ids.shortIds(own, [...all, ...own]).forEach((id, i) => short.set(`${agent}:${own[i]}`, id))
  }
  return sessions.map((s) => short.get(s.unifiedId))
}

// The one session that the command-line words name (see ids.parseRefs), or several for diff.
async function sessionsNamed(api, words, count) {
  return Promise.all(ids.parseRefs(words, count).map((ref) => ids.resolveRef(api, ref)))
}

// The matching sessions that recorded no token counts, for the cost report's note.
async function sessionsWithoutTokens(api, options) {
  const filters = defined({ since: options.since, until: options.until, model: options.model, tags: options.tags })
  const agents = options.agent ? [options.agent] : BUILT_IN_AGENTS
  const lists = await Promise.all(agents.map((agent) => api.list(agent, { ...filters, limit: ids.ALL })))
  return lists.flat().filter(render.recordedNoTokens)
}

const SESSION_HELP = `the session: ${ids.SPELLINGS}`

// Option builders shared by several commands, so names, parsers and help read the same everywhere.
const opt = {
  since: () => new Option('--since <date>', 'only sessions created at or after this date (ISO 8601, local time unless an offset is given; or an age: 7d, 12h)').argParser(args.since),
  until: () => new Option('--until <date>', 'only sessions created at or before this date (a bare date includes that whole day)').argParser(args.until),
  model: () => new Option('--model <id>', 'only sessions that used this model'),
  tag: () => new Option('--tag <tag>', 'only sessions with this tag (repeatable: any of them)').argParser(args.collect),
  limit: (dflt) => new Option('--limit <n>', `at most this many results (default: ${dflt})`).argParser(args.limit),
  agent: (what) => new Option('--agent <agent>', what),
  json: () => new Option('--json', 'print the result as JSON (and nothing else) on stdout'),
  wide: () => new Option('--wide', 'show session ids in full (a pipe always gets them in full)'),
}

const QUERY_HELP = `
Query language (case is ignored; OR and NOT only in capitals):
  words       every word must occur, anywhere     amux sessions search flaky test
  "phrase"    these words, in this order          amux sessions search '"flaky test"'
  OR          either side                         amux sessions search kubernetes OR docker
  NOT         the left side, not the right one    amux sessions search test NOT flaky
  prefix*     words starting with it              amux sessions search 'kube*'
  CJK         found anywhere, no spaces needed    amux sessions search 大别山

Piped, each hit is one line: agent:id, updated (ISO 8601), score, cost (USD), title, snippet,
separated by tabs.
`


function build() {
  const program = new Command('amux')
    .description('Read the sessions AI coding agents left on this machine: list, show, search, export, diff, cost.')
    .version(version)
    .addHelpText(
      'after',
      `\nAgents: ${BUILT_IN_AGENTS.join(', ')}\n\nExamples:\n` +
        '  amux sessions list claude --since 7d\n' +
        '  amux sessions search flaky test --agent codex\n' +
        '  amux sessions show claude:90c192cf         (or: claude 90c192cf, or just 90c192cf)\n' +
        '  amux cost report --group-by model --since 2025-01-01\n',
    )

  const sessions = program.command('sessions').description('list, show, search, export and diff sessions')

  sessions
    .command('list')
    .description("list an agent's sessions, newest first")
    .argument('<agent>', `one of: ${BUILT_IN_AGENTS.join(', ')}`)
    .addOption(opt.since())
    .addOption(opt.until())
    .addOption(opt.model())
    .addOption(opt.tag())
    .addOption(opt.limit(LIST_LIMIT))
    .addOption(new Option('--sort <field>', 'order by').choices(['date', 'cost', 'turns']).default(undefined, 'date'))
    .addOption(opt.wide())
    .addOption(opt.json())
    .addHelpText('after', '\nPiped, each session is one line: id, updated (ISO 8601), turns, model, cost (USD), title,\nseparated by tabs.\n')
    .action(async (agent, o) => {
      knownAgent(agent)
      const filters = defined({ since: o.since, until: o.until, model: o.model, tags: o.tag })
      const options = defined({ ...filters, limit: o.limit, sort: o.sort })
      const label = `reading ${agent} sessions`
      const v = view(o)
      // Piped, the lines come written from the native side: no objects for thousands of sessions.
      if (!v.tty && !o.json) return process.stdout.write(await withProgress(label, client().tsv.list(agent, options)))
      const api = sessionsApi()
      if (o.json) return printJson(await withProgress(label, api.list(agent, options)))
      const listed = (limit) => withProgress(label, api.list(agent, { ...options, limit }))
      const { sessions: result, more } = await upTo(o.limit ?? LIST_LIMIT, listed)
      // Unfiltered and nothing left out, the list holds every id there is: no second listing.
      const complete = Object.keys(filters).length === 0 && !more
      const universe = complete ? new Map([[agent, result.map((s) => s.sessionId)]]) : undefined
      const shown = v.wide ? undefined : await shortIds(api, result, universe)
      print(render.sessionList(agent, result, v, shown, more))
    })

  sessions
    .command('show')
    .description('print one session: on a terminal rendered for reading (through a pager when long), else the Markdown export')
    .usage('[options] <agent>:<id> | <agent> <id> | <id-prefix>')
    .argument('<session...>', SESSION_HELP)
    .addOption(new Option('--format <format>', 'print this export format exactly, even on a terminal').choices(['markdown', 'json', 'jsonl']))
    .action(async (words, o) => {
      const api = sessionsApi()
      const [{ agent, sessionId }] = await sessionsNamed(api, words, 1)
      const label = `reading ${agent}:${sessionId}`
      const v = view()
      if (o.format || !v.tty) return print(await withProgress(label, api.export(agent, sessionId, o.format ?? 'markdown')))
      const { renderSession, rowsTaken } = transcript()
      const text = renderSession(await withProgress(label, api.get(agent, sessionId)), v)
      await pager().page(text, { rows: v.height, rowsTaken: rowsTaken(text, v.width, visibleWidth) })
    })

  sessions
    .command('search')
    .description('full-text search across the sessions of every agent (or one)')
    .argument('<query...>', 'what to look for (the query language is below)')
    .addOption(opt.agent('search only this agent'))
    .addOption(opt.since())
    .addOption(opt.until())
    .addOption(opt.model())
    .addOption(opt.tag())
    .addOption(opt.limit(SEARCH_LIMIT))
    .addOption(new Option('--sort <order>', 'order by').choices(['relevance', 'date', 'cost']).default(undefined, 'relevance'))
    .addOption(opt.wide())
    .addOption(opt.json())
    .addHelpText('after', QUERY_HELP)
    .action(async (words, o) => {
      const text = words.join(' ')
      const query = defined({
        text,
        agent: knownAgent(o.agent),
        since: o.since,
        until: o.until,
        model: o.model,
        tags: o.tag,
        limit: o.limit,
        sort: o.sort,
      })
      const api = sessionsApi()
      const searched = (limit) => withProgress(`searching for ${render.quoted(text)}`, api.search(defined({ ...query, limit })))
      const v = view(o)
      if (o.json || !v.tty) {
        const result = await searched(query.limit)
        return o.json ? printJson(result) : process.stdout.write(tsv.searchResults(result))
      }
      const { sessions: result, more } = await upTo(o.limit ?? SEARCH_LIMIT, searched)
      const shown = v.wide ? undefined : (await shortIds(api, result)).map((id, i) => `${result[i].agent}:${id}`)
      print(render.searchResults(text, result, v, shown, more))
    })

  sessions
    .command('export')
    .description('write one session to stdout (JSON by default)')
    .usage('[options] <agent>:<id> | <agent> <id> | <id-prefix>')
    .argument('<session...>', SESSION_HELP)
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'jsonl', 'markdown']).default('json'))
    .action(async (words, o) => {
      const api = sessionsApi()
      const [{ agent, sessionId }] = await sessionsNamed(api, words, 1)
      print(await withProgress(`exporting ${agent}:${sessionId}`, api.export(agent, sessionId, o.format)))
    })

  sessions
    .command('diff')
    .description('compare two sessions message by message (same or different agents)')
    .usage('[options] <session-a> <session-b>')
    .argument('<sessions...>', `the two sessions, each as ${ids.SPELLINGS}`)
    .addOption(opt.json())
    .addHelpText('after', "\nPiped, each message is one line: type (addition, removal, modification, unchanged), index in A,\nindex in B, role, A's text, B's text, separated by tabs.\n")
    .action(async (words, o) => {
      const api = sessionsApi()
      const [a, b] = await sessionsNamed(api, words, 2)
      const result = await withProgress('comparing sessions', api.diff(a, b))
      if (o.json) return printJson(result)
      const v = view()
      if (!v.tty) return process.stdout.write(tsv.sessionDiff(result, render.gist))
      print(render.sessionDiff(result, v))
    })

  // Resuming or forking starts a new agent run: the run API of the wider agent-mux project, which
  // this read-only package does not contain. Say so plainly rather than pretend.
  for (const [name, verb] of [['resume', 'resuming'], ['fork', 'forking']]) {
    sessions
      .command(name)
      .description(`not available: ${verb} a session starts a new run, which this package cannot do`)
      .argument('[args...]')
      .allowUnknownOption()
      .action(() => {
        throw new AgentMuxError(
          'CAPABILITY_ERROR',
          `'sessions ${name}' needs the agent-mux run API, which @a5c-ai/agent-mux does not include (it only reads sessions); ` +
            `use the agent's own CLI to continue a session`,
        )
      })
  }

  const index = program
    .command('index')
    .description('the persistent index that makes search and list fast (in the cache directory)')
  index
    .command('status')
    .description("where the index is, its size, and how many sources it has yet to read")
    .addOption(opt.json())
    .action(async (o) => {
      const status = await withProgress('checking the index', client().index.status())
      if (o.json) printJson(status)
      else print(render.indexStatus(status))
    })
  index
    .command('rebuild')
    .description('delete the index and build it again from every agent\'s sessions')
    .addOption(opt.json())
    .action(async (o) => {
      const status = await withProgress('building the index', client().index.rebuild(), { delayMs: 0 })
      if (o.json) printJson(status)
      else print(render.indexStatus(status))
    })
  index
    .command('clear')
    .description('delete the index (the next call that needs it builds it again)')
    .action(async () => {
      const cleared = await client().index.clear()
      print(cleared ? 'index deleted' : 'the index is off (AGENT_MUX_NO_CACHE)')
    })

  program
    .command('cost')
    .description('spending across sessions')
    .command('report')
    .description('total cost and tokens, optionally grouped')
    .addOption(opt.agent('only this agent'))
    .addOption(opt.since())
    .addOption(opt.until())
    .addOption(opt.model())
    .addOption(opt.tag())
    .addOption(new Option('--group-by <dimension>', 'break the total down (on a terminal with a bar per group)').choices(['agent', 'model', 'day', 'tag']))
    .addOption(opt.json())
    .addHelpText('after', "\nPiped, each group is one line, then TOTAL: group, sessions, input, output, thinking and cached\ntokens, cost (USD), separated by tabs; notes go to stderr.\n")
    .action(async (o) => {
      const options = defined({
        agent: knownAgent(o.agent),
        since: o.since,
        until: o.until,
        model: o.model,
        tags: o.tag,
        groupBy: o.groupBy,
      })
      const api = sessionsApi()
      const [result, blind] = await withProgress(
        'adding up costs',
        Promise.all([api.totalCost(options), o.json ? [] : sessionsWithoutTokens(api, options)]),
      )
      if (o.json) return printJson(result)
      const v = view()
      const notes = render.costNotes(result, o.groupBy, blind)
      if (!v.tty) {
        process.stdout.write(tsv.costReport(result, render.costGroups(result, o.groupBy)))
        for (const note of notes) process.stderr.write(`${note}\n`)
        return
      }
      print(render.costReport(result, o.groupBy, v) + render.wrappedNotes(notes, v.width))
    })

  return program
}

function fail(error) {
  if (error instanceof PrintAndExit) {
    // Asked for: on stdout, success. A command line that names no command gets it as an error.
    ;(error.asked ? process.stdout : process.stderr).write(error.text)
    process.exitCode = error.asked ? 0 : EXIT_USAGE
    return
  }
  if (error instanceof UsageError) error = new AgentMuxError('VALIDATION_ERROR', error.message)
  const known = error instanceof AgentMuxError
  const code = known ? error.code : 'INTERNAL'
  let message = String(error && error.message ? error.message : error).replace(/\s*\n\s*/g, ' ')
  if (code === 'AGENT_NOT_FOUND') message += ` (agents: ${BUILT_IN_AGENTS.join(', ')})`
  process.stderr.write(`amux: ${code}: ${message}\n`)
  if (!known && process.env.AMUX_DEBUG && error && error.stack) process.stderr.write(`${error.stack}\n`)
  // An unknown agent can only come from the command line: the CLI names agents, the API does not.
  process.exitCode = code === 'VALIDATION_ERROR' || code === 'AGENT_NOT_FOUND' ? EXIT_USAGE : EXIT_ERROR
}

// `amux sessions list claude | head`: the reader went away, which is not an error of ours.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

build().parseAsync(process.argv.slice(2)).catch(fail)
