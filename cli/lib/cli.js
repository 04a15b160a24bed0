'use strict'
// The command-line parser of amux: a tree of commands, each with its arguments and options, help
// drawn from them, and usage errors as `UsageError`. Option values are parsed by node's own
// `util.parseArgs`. It replaced commander, whose loading (with node:child_process, for external
// subcommands amux does not have) was a large part of every start.
//
// A command's definition may be loaded only when it is needed (`command(name, load)`), and the text
// after a help may be a function called only when help is drawn: a start reads no more than the
// command it runs.

const { parseArgs } = require('node:util')

/** A mistake on the command line (exit 2); `InvalidArgumentError` is one an option parser throws. */
class UsageError extends Error {
  constructor(message) {
    super(message)
    this.name = 'UsageError'
  }
}
class InvalidArgumentError extends UsageError {}

/**
 * Text to print instead of running anything: help or the version asked for (stdout, exit 0), or
 * help as the answer to a command line that names no command (stderr, exit 2).
 */
class PrintAndExit extends Error {
  constructor(text, { asked = true } = {}) {
    super('help')
    this.name = 'PrintAndExit'
    this.text = text
    this.asked = asked
  }
}

class Option {
  /** `flags` as `--name <value>` (a value) or `--name` (a switch); `-x, --name` gives a short one. */
  constructor(flags, description) {
    const m = /^(?:-(\w), )?--([\w-]+)(?: <([^>]+)>)?$/.exec(flags)
    if (!m) throw new Error(`bad option flags: ${flags}`)
    this.flags = flags
    this.description = description
    this.short = m[1]
    this.long = m[2]
    this.takesValue = Boolean(m[3])
    this.key = this.long.replace(/-(\w)/g, (_, c) => c.toUpperCase())
    this.parse = undefined
    this.allowed = undefined
    this.defaultValue = undefined
    this.defaultText = undefined
  }

  /** `fn(value, previous)`; given several times, each value is parsed with the result so far. */
  argParser(fn) {
    this.parse = fn
    return this
  }

  choices(values) {
    this.allowed = values
    return this
  }

  /** The value when the option is not given, and how help names it (the value, by default). */
  default(value, text) {
    this.defaultValue = value
    this.defaultText = text
    return this
  }

  help() {
    const notes = []
    if (this.allowed) notes.push(`choices: ${this.allowed.map((c) => `"${c}"`).join(', ')}`)
    const shown = this.defaultText ?? this.defaultValue
    if (shown !== undefined) notes.push(`default: ${shown}`)
    return notes.length ? `${this.description} (${notes.join(', ')})` : this.description
  }

  value(raw, previous) {
    const invalid = (why) => new UsageError(`option '${this.flags}' argument '${raw}' is invalid. ${why}`)
    // A parser of the parameters' table checks the choices itself, in its own words.
    if (this.allowed && !this.parse && !this.allowed.includes(raw)) {
      throw invalid(`Allowed choices are ${this.allowed.join(', ')}.`)
    }
    if (!this.parse) return raw
    try {
      return this.parse(raw, previous)
    } catch (e) {
      if (e instanceof InvalidArgumentError) throw invalid(e.message)
      throw e
    }
  }
}

const HELP = new Option('-h, --help', 'display help for command')

class Command {
  constructor(name, parent) {
    this.name = name
    this.parent = parent
    this.summary = ''
    this.commands = []
    this.args = []
    this.options = []
    this.after = []
    this.usageText = undefined
    this.handler = undefined
    this.versionText = undefined
    this.loose = false
    this.load = undefined
  }

  description(text) {
    this.summary = text
    return this
  }

  version(text) {
    this.versionText = text
    return this
  }

  /**
   * A subcommand. `load`, when given, returns the function that defines it (`(command) => …`),
   * called only when the command is run or a help lists it: a start reads only its own command.
   */
  command(name, load) {
    const sub = new Command(name, this)
    sub.load = load
    this.commands.push(sub)
    return sub
  }

  /** This command, its definition read first if it has not been. */
  defined() {
    const load = this.load
    this.load = undefined
    if (load) load()(this)
    return this
  }

  /** `<name>` required, `[name]` optional, `...` for all the words left. */
  argument(spec, description = '') {
    const m = /^([<[])([\w-]+)(\.\.\.)?[>\]]$/.exec(spec)
    if (!m) throw new Error(`bad argument: ${spec}`)
    this.args.push({ spec, name: m[2], required: m[1] === '<', variadic: Boolean(m[3]), description })
    return this
  }

  addOption(option) {
    this.options.push(option)
    return this
  }

  addOptions(options) {
    for (const option of options) this.addOption(option)
    return this
  }

  /** `text`: a string, or a function returning one when help is drawn. */
  addHelpText(_where, text) {
    this.after.push(text)
    return this
  }

  usage(text) {
    this.usageText = text
    return this
  }

  action(fn) {
    this.handler = fn
    return this
  }

  /** Take any words and options (for commands that only explain why they are not there). */
  allowUnknownOption() {
    this.loose = true
    return this
  }

  path() {
    return this.parent ? `${this.parent.path()} ${this.name}` : this.name
  }

  usageLine() {
    if (this.usageText) return this.usageText
    if (this.commands.length) return '[options] [command]'
    return ['[options]', ...this.args.map((a) => a.spec)].join(' ')
  }

  helpText() {
    const sections = [`Usage: ${this.path()} ${this.usageLine()}`]
    if (this.summary) sections.push(wrap(this.summary, process.stdout.columns || 80).join('\n'))
    const described = this.args.filter((a) => a.description)
    if (described.length) sections.push(table('Arguments:', described.map((a) => [a.name, a.description])))
    const options = this.versionText ? [new Option('-V, --version', 'output the version number'), ...this.options, HELP] : [...this.options, HELP]
    sections.push(table('Options:', options.map((o) => [o.flags, o.help()])))
    if (this.commands.length) {
      for (const c of this.commands) c.defined()
      const term = (c) => (c.commands.length ? c.name : [c.name, c.options.length ? '[options]' : '', ...c.args.map((a) => a.spec)].filter(Boolean).join(' '))
      const rows = this.commands.map((c) => [term(c), c.summary])
      rows.push(['help [command]', 'display help for command'])
      sections.push(table('Commands:', rows))
    }
    return `${sections.join('\n\n')}\n${this.after.map(drawn).join('')}`
  }

  /** The command `words` name, as far as they name one, and the words left for it. */
  find(words) {
    let command = this
    let rest = words
    for (;;) {
      const sub = command.commands.find((c) => c.name === rest[0])
      if (!sub) return { command, rest }
      command = sub.defined()
      rest = rest.slice(1)
    }
  }

  /** Run the command the words name; a promise of its action. */
  async parseAsync(words) {
    let cmd = this
    let rest = words
    while (cmd.commands.length) {
      const [word, ...more] = rest
      if (word === undefined) throw new PrintAndExit(cmd.helpText(), { asked: false })
      // `amux help sessions search` is `amux sessions search --help`.
      if (word === 'help') {
        rest = [...more, '--help']
        continue
      }
      if (word === '-h' || word === '--help') throw new PrintAndExit(cmd.helpText())
      if (cmd.versionText && (word === '-V' || word === '--version')) throw new PrintAndExit(`${cmd.versionText}\n`)
      if (word.startsWith('-')) throw unknownOption(word, [])
      const sub = cmd.commands.find((c) => c.name === word)
      if (!sub) throw new UsageError(`unknown command '${word}'${suggest(word, cmd.commands.map((c) => c.name))}`)
      cmd = sub.defined()
      rest = more
    }
    return cmd.run(rest)
  }

  run(words) {
    if (this.loose) {
      const own = words.includes('--') ? words.slice(0, words.indexOf('--')) : words
      if (own.includes('-h') || own.includes('--help')) throw new PrintAndExit(this.helpText())
      return this.handler(words, {})
    }
    const config = { help: { type: 'boolean', short: 'h' } }
    for (const o of this.options) {
      // A parser that takes the value so far (`collect`) makes the option repeatable.
      config[o.long] = { type: o.takesValue ? 'string' : 'boolean', multiple: o.takesValue && Boolean(o.parse && o.parse.length > 1) }
      if (o.short) config[o.long].short = o.short
    }
    let parsed
    try {
      parsed = parseArgs({ args: words, options: config, allowPositionals: true, strict: true })
    } catch (e) {
      throw this.parseError(e)
    }
    if (parsed.values.help) throw new PrintAndExit(this.helpText())
    const values = {}
    for (const o of this.options) {
      const given = parsed.values[o.long]
      if (given === undefined) {
        values[o.key] = o.defaultValue
      } else if (Array.isArray(given)) {
        values[o.key] = given.reduce((previous, v) => o.value(v, previous), undefined)
      } else {
        values[o.key] = o.takesValue ? o.value(given) : given
      }
    }
    const positionals = parsed.positionals
    const args = []
    for (const [i, a] of this.args.entries()) {
      const taken = a.variadic ? positionals.slice(i) : positionals[i]
      const missing = a.variadic ? taken.length === 0 : taken === undefined
      if (missing && a.required) throw new UsageError(`missing required argument '${a.name}'`)
      args.push(taken)
    }
    const most = this.args.some((a) => a.variadic) ? Infinity : this.args.length
    if (positionals.length > most) {
      throw new UsageError(`too many arguments for '${this.name}': expected ${most}, got ${positionals.length}`)
    }
    return this.handler(...args, values)
  }

  // util.parseArgs' messages name the option; ours say it the way the rest of the CLI does.
  parseError(e) {
    const option = /'(-[^' ]+)/.exec(String(e.message))?.[1]
    const known = option && this.options.find((o) => `--${o.long}` === option || `-${o.short}` === option)
    switch (e.code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
        return unknownOption(option, this.options.map((o) => o.long))
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        if (known && known.takesValue) return new UsageError(`option '${known.flags}' needs a value (to give one that starts with '-', write ${option}=<value>)`)
        if (known) return new UsageError(`option '${known.flags}' takes no value`)
        return new UsageError(String(e.message))
      default:
        return new UsageError(String(e.message))
    }
  }
}

/**
 * An option no command has, reported as the MCP tools and the UI's API report a parameter they do
 * not take: by its name in the library's spelling (`--group-bi` → 'groupBi'), with the nearest one.
 * The table's module is read only then: it loads the library, which `--version` never does.
 */
function unknownOption(word, longs) {
  const { unknownParameter } = require('../../params/index.js')
  const camel = (long) => long.replace(/-(\w)/g, (_, c) => c.toUpperCase())
  const name = word.startsWith('--') ? camel(word.slice(2)) : word
  return unknownParameter(name, longs.map(camel))
}

const drawn = (text) => (typeof text === 'function' ? text() : text)

// Two columns, the second aligned and wrapped at words to the terminal's width (80 on a pipe).
function table(title, rows) {
  const width = Math.max(...rows.map(([a]) => a.length)) + 2
  const indent = ' '.repeat(2 + width)
  const room = Math.max(40, (process.stdout.columns || 80) - indent.length)
  const row = ([a, b]) => wrap(b, room).map((line, i) => `${i ? indent : `  ${a.padEnd(width)}`}${line}`.trimEnd())
  return [title, ...rows.flatMap(row)].join('\n')
}

function wrap(text, room) {
  const lines = ['']
  for (const word of text.split(' ')) {
    const last = lines.length - 1
    if (lines[last] && lines[last].length + 1 + word.length > room) lines.push(word)
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word
  }
  return lines
}

// " (Did you mean x?)" when a known word is within two edits of `word` (read only on a mistake: a
// start loads no more than it runs).
function suggest(word, known) {
  const best = require('../../human/nearest.js').nearest(word, known)
  return best === undefined ? '' : ` (Did you mean ${best}?)`
}

module.exports = { Command, Option, UsageError, InvalidArgumentError, PrintAndExit }
