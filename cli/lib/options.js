'use strict'
// The command line's options, made from the parameters' table (params/): the flag is the
// parameter's name in kebab-case (groupBy → --group-by), the help its line, the value read by its
// parser, so a bad value is the same VALIDATION_ERROR the MCP tools and the UI's API give. Parsed
// values are kept under the library's names (`--tag` → `tags`), ready to spread into a call.
// Only what no other front end has is defined here: --json and --wide.

const { Option } = require('./cli.js')
const { calls, takenBy, forFrontEnd, filtersOf, defined } = require('../../params/index.js')

const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/** The option of one parameter as the command line takes it (`forFrontEnd(p, 'cli')`). */
function optionOf(p, help = p.help) {
  const long = p.short ? `-${p.short}, --${kebab(p.name)}` : `--${kebab(p.name)}`
  const option = new Option(p.kind.type === 'flag' ? long : `${long} <${p.value ?? p.kind.value}>`, help)
  option.key = p.key
  if (p.kind.type === 'texts') option.argParser((value, previous) => p.parse(value, previous))
  else if (p.kind.type !== 'flag') option.argParser((value) => p.parse(value))
  if (p.kind.type === 'choice') option.choices(p.kind.choices)
  if (p.shownDefault !== undefined) option.default(p.default, String(p.shownDefault))
  return option
}

/**
 * The options of `call` (a table of params/calls.js), in its order: all of them, or the `only`
 * named; `help` replaces a parameter's line for this command. Parameters the command line takes
 * as arguments are left out (see `argumentOf`).
 */
function optionsOf(call, { only, help = {} } = {}) {
  const taken = takenBy(call, 'cli').filter((p) => !p.argument && (!only || only.includes(p.key)))
  return taken.map((p) => optionOf(p, help[p.key]))
}

/** The parser of the parameter `name` of `call` that the command line takes as an argument. */
function argumentOf(call, name) {
  const p = forFrontEnd(call.find((q) => q.name === name), 'cli')
  return (value) => (value === undefined ? undefined : p.parse(value))
}

/** The library's default of the parameter `name` of `call`. */
const defaultOf = (call, name) => call.find((p) => p.name === name).default

/** The values of `call`'s parameters among the parsed options, to pass to the library. */
function valuesOf(call, parsed) {
  return defined(Object.fromEntries(call.map((p) => [p.name, parsed[p.name]])))
}

/**
 * The options of a cost report (`amux cost daily|weekly|monthly|session`): the ones every cost
 * command shares (`calls.usage`: --agent, --since, --until, --timezone, --project, --order,
 * --breakdown), --model, --last, --machine and --user (a team database's), and the report's own `extra` (--start-of-week, --limit).
 * `help`: this report's lines for some of them (what --last counts).
 */
function costOptions(help, extra = []) {
  const shared = [...calls.usage.map((p) => p.name), 'model', 'archived', 'last', 'machine', 'user']
  return optionsOf(calls.costReport, { only: [...shared, ...extra], help })
}

/** --json: the API's result as JSON, and errors as `{ "error": { code, message } }`, on stdout. */
const jsonOption = () => new Option('--json', 'print the result as JSON (and nothing else) on stdout')

/** --wide: ids in full on a terminal. */
const wideOption = () => new Option('--wide', 'show session ids in full (a pipe always gets them in full)')

module.exports = { calls, defaultOf, costOptions, optionsOf, argumentOf, valuesOf, filtersOf, defined, jsonOption, wideOption }
