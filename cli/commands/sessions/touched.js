'use strict'
// amux sessions touched <path|glob>: the sessions whose tool calls edited, wrote, read, deleted or
// ran a command on a file, newest first, each touch with the request that led to it.

const { calls, optionsOf, argumentOf, valuesOf, defined, wideOption, jsonOption } = require('../../lib/options.js')
const { client, shortIds } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')
const tsv = require('../../lib/tsv.js')

const HELP = `
A relative path or glob is taken from the current directory; * and ? stay within one directory,
** crosses directories, and a glob that starts with ** matches anywhere:
  amux sessions touched src/auth.ts
  amux sessions touched 'src/**/*.rs' --action edit --since 7d
  amux sessions touched '**/package.json' --json

Actions: edit, write, read, delete, and command (a shell command ran in that directory, or named
that file as an operand of cat, head, tail, rm, mv, cp, ... or as a redirection's target).
Piped, each touch is one line: agent:id, at (ISO 8601), action, path, lines added, lines removed,
message index, the request that led to it, separated by tabs.
`

module.exports = (command) =>
  command
    .description('the sessions whose tool calls touched a file (a path or a glob), newest first')
    .argument('<path>', 'the file: a path or a glob')
    .addOptions(optionsOf(calls.touched))
    .addOption(wideOption())
    .addOption(jsonOption())
    .addHelpText('after', HELP)
    .action(touched)

async function touched(path, o) {
  const file = argumentOf(calls.touched, 'path')(path)
  const options = defined(valuesOf(calls.touched, o))
  delete options.path
  const found = await withProgress(`finding the sessions that touched ${file}`, client().sessions.touched(file, options))
  if (o.json) return printJson(found)
  const v = view(o)
  if (!v.tty) return process.stdout.write(tsv.touched(found))
  const shown = v.wide ? undefined : (await shortIds(found)).map((id, i) => `${found[i].agent}:${id}`)
  print(render.touched(file, found, v, shown))
}
