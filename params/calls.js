'use strict'
// The parameters of each call, defined once for the command line, the MCP tools and the UI's API
// (param.js says how an entry reads). A new filter is one entry here, added to the calls that
// take it; each front end makes its option, schema or query parameter from it.

const kinds = require('./kinds.js')
const { param, withOptions } = require('./param.js')

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']

// What the agents, lists and searches are filtered by.
const agent = param('agent', kinds.agent(), 'only this agent (default: every agent)')
const since = param('since', kinds.date(), 'only sessions created at or after this date (ISO 8601, local time unless an offset is given; or an age: 7d, 12h)')
const until = param('until', kinds.date({ endOfDay: true }), 'only sessions created at or before this date (a bare date includes that whole day)')
const model = param('model', kinds.text({ max: 200 }), 'only sessions that used this model', { cli: { value: 'id' } })
const tags = param('tags', kinds.texts(), 'only sessions with any of these tags', {
  cli: { name: 'tag', value: 'tag', help: 'only sessions with this tag (repeatable: any of them)' },
  // The UI's query string refuses a repeated parameter, and its page filters by no tag.
  ui: false,
})
const cwd = param('cwd', kinds.directory(), 'only sessions started in this directory', {
  cli: { help: 'only sessions started in this directory (a relative one is taken from here)' },
  mcp: { help: 'only sessions whose working directory is exactly this absolute path' },
})

const branch = param('branch', kinds.text({ max: 200 }), 'only sessions that ran on this git branch (where the agent records it)', { cli: { value: 'name' } })

// A git repository's main working directory: its worktrees and subdirectories are one project.
const project = param('project', kinds.project(), "only sessions of this project: a directory (its git repository's, worktrees and subdirectories included) or a project directory's name", {
  cli: { help: "only sessions of this project: a directory (its git repository's; a relative one is taken from here) or a project directory's name" },
})

// A team database's (`amux --db`, `createClient({ source })`): who synced the session. Locally
// the library refuses them, so a filter is never silently ignored.
const machine = param('machine', kinds.text({ max: 200 }), 'only sessions synced from this machine (team database: amux --db)', { cli: { value: 'name' } })
const user = param('user', kinds.text({ max: 200 }), 'only sessions synced by this user (team database: amux --db)', { cli: { value: 'name' } })

/** The filters of list, search and totalCost, in this order. */
const filters = [since, until, model, tags, cwd, branch, project, machine, user]

// `amux mcp` leaves the calling agent's own live session out of its results (mcp/own-session.js).
const includeOwnSession = param(
  'includeOwnSession',
  kinds.flag(),
  "include the calling agent's own live session, left out by default (the session the agent names in the server's environment, else one in the server's working directory or a root of the client, written in the last 10 minutes)",
  { cli: false, ui: false, mcp: { default: false } },
)

// Sessions amux kept (`amux keep on`) whose source the agent has since deleted.
const archived = param('archived', kinds.choice(['include', 'only', 'exclude']), 'sessions kept by amux whose source the agent deleted: include them, only them, or leave them out', {
  default: 'include',
  cli: { value: 'which' },
})

const limit = (dflt, frontEnds) => param('limit', kinds.count({ min: 1 }), 'at most this many results', { default: dflt, ...frontEnds })

const list = [
  // `amux sessions list [agent]`: the command line names the agent as an argument.
  withOptions(agent, { frontEnds: { cli: { argument: true } } }),
  ...filters,
  archived,
  // A model's context and the page's rows are bounded; a script may ask for every session.
  limit(100, { mcp: { default: 20, max: 1000 }, ui: { default: 50, max: 500 } }),
  param('sort', kinds.choice(['date', 'cost', 'turns']), 'order by', { default: 'date', cli: { value: 'field' } }),
  // A sub-agent's session is folded into its parent's row unless asked for.
  param('subagents', kinds.flag(), "every session on its own row: sub-agents' sessions are not folded into the session that started them", { default: false }),
  includeOwnSession,
]

const search = [
  // The query: the command line's words, MCP's `query`, the UI's `q`.
  param('text', kinds.text({ max: 1000 }), 'what to look for', { cli: { argument: true }, mcp: { name: 'query', required: true }, ui: { name: 'q' } }),
  withOptions(agent, { help: 'search only this agent' }),
  ...filters,
  archived,
  limit(50, { mcp: { default: 10, max: 100 }, ui: { max: 500 } }),
  param('sort', kinds.choice(['relevance', 'date', 'cost']), 'order by', { default: 'relevance', cli: { value: 'order' } }),
  includeOwnSession,
]

const totalCost = [
  withOptions(agent, {
    help: 'only this agent',
    // The UI's chart splits the cost by agent itself.
    frontEnds: { ui: false },
  }),
  ...filters,
  param('groupBy', kinds.choice(['agent', 'model', 'day', 'tag', 'week', 'month', 'session', 'project', 'machine', 'user']), 'break the total down', {
    cli: { value: 'dimension', help: 'break the total down (on a terminal with a bar per group)' },
    // The tool's text and the page's chart draw these only.
    mcp: { choices: ['agent', 'model', 'day', 'machine', 'user'], required: true, help: 'break the total down by this (machine and user: of a team database)' },
    ui: { name: 'by', choices: ['agent', 'model'], default: 'agent' },
  }),
  // The page's cost chart is of every session: it offers no such choice.
  withOptions(archived, { frontEnds: { ui: false } }),
  param('startOfWeek', kinds.choice(WEEKDAYS), 'with groupBy week: the first day of a week', {
    default: 'sunday',
    cli: { value: 'day', help: 'with --group-by week: the first day of a week' },
    mcp: false,
    ui: false,
  }),
]

/**
 * What every cost report (daily, weekly, monthly, session) and the billing blocks take, as ccusage
 * names them: the command line's `amux cost <report>` options.
 */
const usage = [
  agent,
  param('since', kinds.day(), 'only usage from this day (20260105, 2026-01-05) or moment (ISO 8601, or an age: 7d, 12h) on'),
  param('until', kinds.day({ endOfDay: true }), 'only usage up to this day (included) or moment'),
  param('timezone', kinds.text({ max: 100 }), "the calendar of days, weeks and months, an IANA zone (default: TZ, else the system's)", { cli: { value: 'zone' } }),
  project,
  param('order', kinds.choice(['asc', 'desc']), 'order of the rows', { cli: { value: 'order' } }),
  param('breakdown', kinds.flag(), 'a line per model under each row'),
]

const costReport = [
  ...usage,
  param('model', kinds.text({ max: 200 }), "only this model's usage", { cli: { value: 'id' } }),
  archived,
  param('last', kinds.count({ min: 1 }), 'only the last n periods (1: this one), or the n sessions active last'),
  param('limit', kinds.count({ min: 1 }), 'at most this many sessions, the first in order'),
  param('startOfWeek', kinds.choice(WEEKDAYS), 'the first day of a week', { default: 'sunday', cli: { value: 'day' } }),
  machine,
  user,
]

const blocks = [
  withOptions(agent, { help: 'only this agent (default: Claude Code, whose billing blocks are known)' }),
  ...usage.slice(1),
  param('active', kinds.flag(), 'only the active block'),
  param('recent', kinds.flag(), 'only the blocks of the last three days, and the active one'),
  param('sessionLength', kinds.positive({ unit: 'hours' }), 'the length of a block in hours', { default: 5 }),
  param('tokenLimit', kinds.tokenLimit(), "tokens a block may use, for the active block's status ('max': the most a past block used)"),
  archived,
]

// The library takes no default: the command line's export writes JSON unless told; the page names
// one. 'html' is the share file (`amux sessions share` writes it to a file); the page's export
// buttons offer the other three.
const exportSession = [
  param('format', kinds.choice(['json', 'jsonl', 'markdown', 'html']), 'output format', {
    cli: { default: 'json' },
    mcp: false,
    ui: { required: true, choices: ['json', 'jsonl', 'markdown'] },
  }),
  // Off by default, so the spec's export stays byte-exact; MCP and the UI redact by their own rule.
  param('redact', kinds.flag(), 'replace secrets (API keys, tokens, private keys, passwords) by [REDACTED:<rule>:<4 hex>]', { mcp: false, ui: false }),
]

// `amux sessions share`: where the share file goes. Only the command line writes files.
const share = [
  param('output', kinds.text({ max: 4096 }), "the file to write ('-': stdout; default: <agent>-<id>.html in this directory)", {
    cli: { short: 'o', value: 'file' },
    mcp: false,
    ui: false,
  }),
]

// `amux keep forget`: the kept copies to delete (the sessions are the command line's words). Only
// the command line forgets: the MCP tools and the UI's API read, never delete.
const forget = [
  param('before', kinds.date(), 'forget the kept sessions last updated before this date (ISO 8601, local time unless an offset is given; or an age: 90d)', {
    mcp: false,
    ui: false,
  }),
]

// `amux keep status --verify`: every kept chunk read and checked against its hash.
const keepStatus = [
  param('verify', kinds.flag(), 'also read every kept chunk and check it against its hash (the cost of reading the whole kept store)', { mcp: false, ui: false }),
]

// `amux sync <url>`: this machine's sessions pushed into a team database. Only the command line
// writes to a database: the MCP tools and the UI's API read.
const sync = [
  param('machine', kinds.text({ max: 200 }), "this machine's name in the team database (default: the host name)", { cli: { value: 'name' }, mcp: false, ui: false }),
  param('user', kinds.text({ max: 200 }), "the user's name in the team database (default: the OS user)", { cli: { value: 'name' }, mcp: false, ui: false }),
  // The command line's switch is --no-redact (cli/commands/sync.js): redaction is on unless refused.
  param('redact', kinds.flag(), 'replace secrets in the text pushed by [REDACTED:<rule>:<4 hex>]', { default: true, cli: false, mcp: false, ui: false }),
  param('prune', kinds.flag(), "remove this machine's sessions no longer found here from the team database (default: kept, marked deleted)", { mcp: false, ui: false }),
]

// `amux recap`, MCP `recent_activity`: what the agents did in a period, per project.
const recap = [
  param('since', kinds.date(), 'sessions active since this moment (ISO 8601, local time unless an offset is given; an age: 7d, 12h; yesterday, today; default: 24 hours ago)', {
    cli: { help: 'sessions active since this moment (ISO 8601, local time unless an offset is given; an age: 7d, 12h; yesterday, today; default: yesterday)' },
  }),
  param('until', kinds.date({ endOfDay: true }), 'sessions created up to this date (a bare date includes that whole day)'),
  withOptions(agent, { help: 'only this agent' }),
  project,
  param('sessionsPerFile', kinds.count({ min: 0 }), 'name at most this many of the sessions that edited each file, the newest first (each file counts them all: sessions touched <file> lists every one)', {
    default: 3,
    cli: { value: 'n' },
  }),
]

// `amux sessions touched <path|glob>`: the sessions whose tool calls touched a file.
const touched = [
  param('path', kinds.text({ max: 4096 }), 'the file: a path or a glob (* within a directory, ** across; a relative one is taken from the current directory)', {
    required: true,
    cli: { argument: true },
  }),
  param('action', kinds.choice(['edit', 'write', 'read', 'delete', 'command']), 'only touches of this kind', { cli: { value: 'kind' } }),
  withOptions(agent, { help: 'only this agent' }),
  param('since', kinds.date(), 'only touches made at or after this date (ISO 8601, local time unless an offset is given; or an age: 7d, 12h)'),
  param('anyCheckout', kinds.flag(), 'also the same path relative to its git repository in any other checkout (worktree or clone)'),
  project,
  limit(100, { mcp: { default: 20, max: 200 }, ui: { max: 500 } }),
]

module.exports = { sync, touched, filters, recap, includeOwnSession, list, search, totalCost, usage, costReport, blocks, export: exportSession, share, forget, keepStatus, WEEKDAYS }
