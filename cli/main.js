'use strict'
// amux: the command line of @a5c-ai/agent-mux (spec section 7). It is the package's first user and
// uses nothing but the public API (`require('../index.js')`): every rule about sessions lives there.
//
// This file only wires the commands (bin/amux.js, the executable, runs it). `amux <group>
// <name>` lives in cli/commands/<group>/<name>.js (a top-level `amux <name>` in
// cli/commands/<name>.js), which exports `(command) => command…`: it gives the command its
// description, arguments, options and action; `commands()` below names it. A file is read only when its command runs or a help lists it, so a start pays for one
// command (`amux --version` for none).
//
// Output contract: results on stdout. On a terminal they are drawn for a person (tables that fit
// the width, short ids, colour, a pager for long transcripts); piped, they are for scripts (one
// tab-separated line per row, values in full, no header or footer, written by the API's `tsv`:
// cli/lib/tsv.js gives it the rows); with --json, the API's result as JSON and nothing else.
// Progress, notes on a pipe, and errors go to stderr.
// Exit status: 0 success (also "nothing matched"); 1 the call failed, with one line
// `amux: <CODE>: <message>`; 2 the command line was wrong (unknown command, option, agent or
// value, an ambiguous id prefix), with the same one line. With --json (on a command that takes
// it) the error is instead `{ "error": { "code", "message" } }` on stdout, and stderr stays empty.

const { Command, UsageError, PrintAndExit } = require('./lib/cli.js')
const { version } = require('../package.json')

const EXIT_ERROR = 1
const EXIT_USAGE = 2

// For help and errors only: the names come from the native binding, which --version never loads.
const agentNames = () => require('../index.js').BUILT_IN_AGENTS.join(', ')

/**
 * The commands `names` under `parent`, in this order (and in its help): cli/commands/<name>.js
 * under the program itself, cli/commands/<group>/<name>.js under a group.
 */
function commands(parent, names) {
  const dir = parent.parent ? `./commands/${parent.name}` : './commands'
  for (const name of names) parent.command(name, () => require(`${dir}/${name}.js`))
}

function build() {
  const program = new Command('amux')
    .description('Read the sessions AI coding agents left on this machine: list, show, search, export, diff, cost.')
    .version(version)
    .addHelpText(
      'after',
      () =>
        `\nAgents: ${agentNames()}\n\nExamples:\n` +
        '  amux sessions list claude --since 7d\n' +
        '  amux sessions search flaky test --agent codex\n' +
        '  amux sessions show claude:90c192cf         (or: claude 90c192cf, or just 90c192cf)\n' +
        '  amux cost report --group-by model --since 2025-01-01\n' +
        '  amux keep on                                (sessions outlive the agents deleting them)\n' +
        '\nA team database (filled by amux sync): amux --db postgres://host/db <command>, or AGENT_MUX_DB=<url>,\n' +
        'makes list, show, search, export, diff and cost read every synced machine (--machine, --user).\n',
    )

  const sessions = program.command('sessions').description('list, show, search, export, share and diff sessions')
  commands(sessions, ['list', 'show', 'search', 'touched', 'export', 'share', 'diff', 'resume', 'fork'])
  const index = program.command('index').description('the persistent index that makes search and list fast (in the cache directory)')
  commands(index, ['status', 'update', 'rebuild', 'clear'])
  const cost = program.command('cost').description('spending across sessions')
  commands(cost, ['report', 'daily', 'weekly', 'monthly', 'session', 'blocks'])
  const keep = program.command('keep').description("amux's own copy of every session, which outlives the agents deleting theirs (in the data directory)")
  commands(keep, ['on', 'off', 'status', 'forget'])
  commands(program, ['recap', 'doctor', 'mcp', 'ui'])
  commands(program, ['sync'])
  return program
}

// An AgentMuxError comes from index.js, which a failed command may never have loaded (or failed
// to load: then its error is reported like any other).
function agentMuxCode(error) {
  try {
    return error instanceof require('../index.js').AgentMuxError ? error.code : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether the command line asks for JSON: its command takes --json and it was given (before any
 * `--`). Then an error is printed as JSON on stdout too, so that a script never parses prose.
 */
function wantsJson(program, words) {
  try {
    const { command, rest } = program.find(words)
    const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest
    return command.options.some((o) => o.long === 'json') && own.includes('--json')
  } catch {
    return false // the command's own file did not load: its error is reported as text
  }
}

function fail(error, json) {
  if (error instanceof PrintAndExit) {
    // Asked for: on stdout, success. A command line that names no command gets it as an error.
    ;(error.asked ? process.stdout : process.stderr).write(error.text)
    process.exitCode = error.asked ? 0 : EXIT_USAGE
    return
  }
  const known = error instanceof UsageError ? 'VALIDATION_ERROR' : agentMuxCode(error)
  const code = known ?? 'INTERNAL'
  let message = String(error && error.message ? error.message : error).replace(/\s*\n\s*/g, ' ')
  if (code === 'AGENT_NOT_FOUND' && !message.includes('(agents: ')) message += ` (agents: ${agentNames()})`
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`)
  else process.stderr.write(`amux: ${code}: ${message}\n`)
  if (!known && process.env.AMUX_DEBUG && error && error.stack) process.stderr.write(`${error.stack}\n`)
  // An unknown agent can only come from the command line: the CLI names agents, the API does not.
  process.exitCode = code === 'VALIDATION_ERROR' || code === 'AGENT_NOT_FOUND' ? EXIT_USAGE : EXIT_ERROR
}

// `amux sessions list claude | head`: the reader went away, which is not an error of ours.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

/**
 * The global `--db <url>` (or `--db=<url>`) before the command: every command then reads the team
 * database at that URL (as `AGENT_MUX_DB=<url>` does); the words left name the command.
 */
function takeDb(all) {
  const words = [...all]
  let db
  while (words[0] === '--db' || words[0]?.startsWith('--db=')) {
    const word = words.shift()
    if (word === '--db') {
      if (words[0] === undefined || words[0].startsWith('-')) throw new UsageError("option '--db <url>' needs a value")
      db = words.shift()
    } else {
      db = word.slice('--db='.length)
    }
  }
  return { db, words }
}

const program = build()
let words = process.argv.slice(2)
try {
  const taken = takeDb(words)
  words = taken.words
  // `amux sync` pushes this machine's sessions: it never reads them from a team database. The
  // API is loaded only when a database is named: a start pays for what it uses.
  const db = taken.db ?? process.env.AGENT_MUX_DB
  if (db && words[0] !== 'sync') require('./lib/api.js').useSource(db)
  program.parseAsync(words).catch((error) => fail(error, wantsJson(program, words)))
} catch (error) {
  fail(error, false)
}
