#!/usr/bin/env node
'use strict'
// amux: the command line of @a5c-ai/agent-mux (spec section 7). It is the package's first user and
// uses nothing but the public API (`require('../index.js')`): every rule about sessions lives there.
//
// Output contract: results on stdout (with --json, the API's result as JSON and nothing else);
// progress and errors on stderr. An error is one line `amux: <CODE>: <message>`; exit status 1,
// or 2 for usage errors (unknown command or option, bad value, VALIDATION_ERROR from the API).

const { Command, Option } = require('commander')
const { createClient, AgentMuxError, BUILT_IN_AGENTS } = require('../index.js')
const { version } = require('../package.json')
const args = require('./lib/args.js')
const { colorEnabled, painter, terminalWidth } = require('./lib/format.js')
const render = require('./lib/render.js')
const { withProgress, report } = require('./lib/progress.js')

const EXIT_ERROR = 1
const EXIT_USAGE = 2

function view() {
  return {
    width: terminalWidth(process.stdout),
    paint: painter(colorEnabled(process.stdout)),
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
// error instead, so the CLI checks the name against the built-in agents first.
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

// The index reports its progress for the bar drawn under a long call (bin/lib/progress.js).
const client = () => createClient({ onProgress: report })
const sessionsApi = () => client().sessions

// Option builders shared by several commands, so names, parsers and help read the same everywhere.
const opt = {
  since: () => new Option('--since <date>', 'only sessions created at or after this date (ISO 8601, local time unless an offset is given; or an age: 7d, 12h)').argParser(args.since),
  until: () => new Option('--until <date>', 'only sessions created at or before this date (a bare date includes that whole day)').argParser(args.until),
  model: () => new Option('--model <id>', 'only sessions that used this model'),
  tag: () => new Option('--tag <tag>', 'only sessions with this tag (repeatable: any of them)').argParser(args.collect),
  limit: (dflt) => new Option('--limit <n>', `at most this many results (default: ${dflt})`).argParser(args.limit),
  agent: (what) => new Option('--agent <agent>', what),
  json: () => new Option('--json', 'print the result as JSON (and nothing else) on stdout'),
}

function build() {
  const program = new Command('amux')
    .description('Read the sessions AI coding agents left on this machine: list, show, search, export, diff, cost.')
    .version(version, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // commander's usage errors ("error: unknown option '--x'") become our one-line format.
      outputError: (text, write) =>
        write(`amux: VALIDATION_ERROR: ${text.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ').trim()}\n`),
    })
    .addHelpText(
      'after',
      `\nAgents: ${BUILT_IN_AGENTS.join(', ')}\n\nExamples:\n` +
        '  amux sessions list claude --since 7d\n' +
        '  amux sessions search "flaky test" --agent codex\n' +
        '  amux sessions show claude <session-id>\n' +
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
    .addOption(opt.limit(100))
    .addOption(new Option('--sort <field>', 'order by').choices(['date', 'cost', 'turns']).default(undefined, 'date'))
    .addOption(opt.json())
    .action(async (agent, o) => {
      const options = defined({ since: o.since, until: o.until, model: o.model, tags: o.tag, limit: o.limit, sort: o.sort })
      const result = await withProgress(`reading ${agent} sessions`, sessionsApi().list(agent, options))
      if (o.json) printJson(result)
      else print(render.sessionList(agent, result, view()))
    })

  sessions
    .command('show')
    .description('print one session (Markdown transcript by default)')
    .argument('<agent>', `one of: ${BUILT_IN_AGENTS.join(', ')}`)
    .argument('<session-id>', "the agent's own session id (as listed)")
    .addOption(new Option('--format <format>', 'output format').choices(['markdown', 'json', 'jsonl']).default('markdown'))
    .action(async (agent, id, o) => {
      print(await withProgress(`reading ${agent}:${id}`, sessionsApi().export(agent, id, o.format)))
    })

  sessions
    .command('search')
    .description('full-text search across the sessions of every agent (or one)')
    .argument('<query...>', 'words to look for (several words are searched as one phrase)')
    .addOption(opt.agent('search only this agent'))
    .addOption(opt.since())
    .addOption(opt.until())
    .addOption(opt.model())
    .addOption(opt.tag())
    .addOption(opt.limit(50))
    .addOption(new Option('--sort <order>', 'order by').choices(['relevance', 'date', 'cost']).default(undefined, 'relevance'))
    .addOption(opt.json())
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
      const result = await withProgress(`searching for "${text}"`, sessionsApi().search(query))
      if (o.json) printJson(result)
      else print(render.searchResults(text, result, view()))
    })

  sessions
    .command('export')
    .description('write one session to stdout (JSON by default)')
    .argument('<agent>', `one of: ${BUILT_IN_AGENTS.join(', ')}`)
    .argument('<session-id>', "the agent's own session id")
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'jsonl', 'markdown']).default('json'))
    .action(async (agent, id, o) => {
      print(await withProgress(`exporting ${agent}:${id}`, sessionsApi().export(agent, id, o.format)))
    })

  sessions
    .command('diff')
    .description('compare two sessions message by message (same or different agents)')
    .argument('<a>', 'first session as <agent>:<session-id>', args.sessionRef)
    .argument('<b>', 'second session as <agent>:<session-id>', args.sessionRef)
    .addOption(opt.json())
    .action(async (a, b, o) => {
      const result = await withProgress('comparing sessions', sessionsApi().diff(a, b))
      if (o.json) printJson(result)
      else print(render.sessionDiff(result, view()))
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
    .addOption(new Option('--group-by <dimension>', 'break the total down').choices(['agent', 'model', 'day', 'tag']))
    .addOption(opt.json())
    .action(async (o) => {
      const options = defined({
        agent: knownAgent(o.agent),
        since: o.since,
        until: o.until,
        model: o.model,
        tags: o.tag,
        groupBy: o.groupBy,
      })
      const result = await withProgress('adding up costs', sessionsApi().totalCost(options))
      if (o.json) printJson(result)
      else print(render.costReport(result, o.groupBy, view()))
    })

  return program
}

function fail(error) {
  if (error && error.name === 'CommanderError') {
    // Help and --version exit 0; everything else commander reports (already printed) is usage.
    process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE
    return
  }
  const known = error instanceof AgentMuxError
  const code = known ? error.code : 'INTERNAL'
  let message = String(error && error.message ? error.message : error).replace(/\s*\n\s*/g, ' ')
  if (code === 'AGENT_NOT_FOUND') message += ` (agents: ${BUILT_IN_AGENTS.join(', ')})`
  process.stderr.write(`amux: ${code}: ${message}\n`)
  if (!known && process.env.AMUX_DEBUG && error && error.stack) process.stderr.write(`${error.stack}\n`)
  process.exitCode = code === 'VALIDATION_ERROR' ? EXIT_USAGE : EXIT_ERROR
}

// `amux sessions list claude | head`: the reader went away, which is not an error of ours.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

build().parseAsync(process.argv).catch(fail)
