'use strict'
// amux sessions search <query...>: full-text search across every agent's sessions (or one's).

const { calls, defaultOf, optionsOf, argumentOf, valuesOf, defined, wideOption, jsonOption } = require('../../lib/options.js')
const { client, upTo, shortIds } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')
const tsv = require('../../lib/tsv.js')

// The API's default limit (session-manager spec), which the terminal's count line needs to know.
const LIMIT = defaultOf(calls.search, 'limit')

const QUERY_HELP = `
Query language (case is ignored; OR and NOT only in capitals):
  words       every word must occur, anywhere     amux sessions search flaky test
  "phrase"    these words, in this order          amux sessions search '"flaky test"'
  OR          either side                         amux sessions search kubernetes OR docker
  NOT         the left side, not the right one    amux sessions search test NOT flaky
  prefix*     words starting with it              amux sessions search 'kube*'
  CJK         found anywhere, no spaces needed    amux sessions search 大别山
  file:path   sessions that touched a file (glob) amux sessions search 'file:src/*.rs tokenizer'

Piped, each hit is one line: agent:id, updated (ISO 8601), score, cost (USD), title, snippet,
separated by tabs. A session amux kept whose source the agent deleted is marked [archived] on a
terminal and archived: true with --json; piped, the columns stay as they are: --archived only
(or exclude) selects them.
`

module.exports = (command) =>
  command
    .description('full-text search across the sessions of every agent (or one)')
    .argument('<query...>', 'what to look for (the query language is below)')
    .addOptions(optionsOf(calls.search))
    .addOption(wideOption())
    .addOption(jsonOption())
    .addHelpText('after', QUERY_HELP)
    .action(search)

async function search(words, o) {
  const text = argumentOf(calls.search, 'text')(words.join(' '))
  const query = { ...valuesOf(calls.search, o), text }
  const api = client().sessions
  const searched = (limit) => withProgress(`searching for ${render.quoted(text)}`, api.search(defined({ ...query, limit })))
  const v = view(o)
  if (o.json || !v.tty) {
    const result = await searched(query.limit)
    return o.json ? printJson(result) : process.stdout.write(tsv.searchResults(result))
  }
  const { sessions: result, more } = await upTo(o.limit ?? LIMIT, searched)
  const shown = v.wide ? undefined : (await shortIds(result)).map((id, i) => `${result[i].agent}:${id}`)
  print(render.searchResults(text, result, v, shown, more))
}
