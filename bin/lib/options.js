'use strict'
// The options several commands share, defined once so that their names, value parsers and help
// read the same everywhere; and the API's filters made from them.

const { Option } = require('./cli.js')
const args = require('./args.js')

/**
 * The filter options, in this order: --since, --until, --model, --tag (repeatable: any of them),
 * --cwd. Add them with `command.addOptions(filterOptions())`; read them with `filtersOf`.
 */
function filterOptions() {
  return [
    new Option('--since <date>', 'only sessions created at or after this date (ISO 8601, local time unless an offset is given; or an age: 7d, 12h)').argParser(args.since),
    new Option('--until <date>', 'only sessions created at or before this date (a bare date includes that whole day)').argParser(args.until),
    new Option('--model <id>', 'only sessions that used this model'),
    new Option('--tag <tag>', 'only sessions with this tag (repeatable: any of them)').argParser(args.collect),
    new Option('--cwd <dir>', 'only sessions started in this directory (a relative one is taken from here)').argParser(args.directory),
  ]
}

/**
 * The API's filters for the filter options given on the command line: `{ since, until, model,
 * tags, cwd }` without the ones not given, to spread into `list`, `listAll`, `search` or `totalCost`.
 */
function filtersOf(parsed) {
  return defined({ since: parsed.since, until: parsed.until, model: parsed.model, tags: parsed.tag, cwd: parsed.cwd })
}

/** `object` without its undefined values, so the API's own defaults apply to what was not given. */
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined))
}

/** --limit <n>; `dflt` is the API's own default, named in the help. */
const limitOption = (dflt) => new Option('--limit <n>', `at most this many results (default: ${dflt})`).argParser(args.limit)

/** --agent <agent>, as a filter of a command that covers every agent otherwise. */
const agentOption = (what) => new Option('--agent <agent>', what)

/** --json: the API's result as JSON, and errors as `{ "error": { code, message } }`, on stdout. */
const jsonOption = () => new Option('--json', 'print the result as JSON (and nothing else) on stdout')

/** --wide: ids in full on a terminal. */
const wideOption = () => new Option('--wide', 'show session ids in full (a pipe always gets them in full)')

/**
 * The options of the cost reports (`cost daily|weekly|monthly|session|blocks`), as ccusage names
 * them: --since, --until (a bare day is a day of --timezone; ccusage's 20260105 too), --timezone,
 * --project, --order and --breakdown. Read them with `usageOf`.
 */
function usageOptions() {
  return [
    new Option('--since <date>', 'only usage from this day (20260105, 2026-01-05) or moment (ISO 8601, or an age: 7d, 12h) on').argParser(args.reportSince),
    new Option('--until <date>', 'only usage up to this day (included) or moment').argParser(args.reportUntil),
    new Option('--timezone <zone>', 'the calendar of days, weeks and months, an IANA zone (default: TZ, else the system\'s)'),
    new Option('--project <dir>', 'only sessions started in this directory (a relative one is taken from here)').argParser(args.directory),
    new Option('--order <order>', 'order of the rows').choices(['asc', 'desc']),
    new Option('--breakdown', 'a line per model under each row'),
  ]
}

/** --start-of-week <day>: the first day of a week (the API's `startOfWeek`; default Sunday, as ccusage). */
const startOfWeekOption = (what = 'the first day of a week') =>
  new Option('--start-of-week <day>', what)
    .choices(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'])
    .default(undefined, 'sunday')

/** The API's options for `usageOptions` given on the command line. */
function usageOf(parsed) {
  return defined({ since: parsed.since, until: parsed.until, timezone: parsed.timezone, project: parsed.project, order: parsed.order })
}

module.exports = { filterOptions, filtersOf, defined, limitOption, agentOption, jsonOption, wideOption, usageOptions, usageOf, startOfWeekOption }
