'use strict'
// amux keep forget <session…> | --before <date>: the kept copies of these sessions deleted, for
// privacy. A kept session whose source the agent deleted is then gone for good, so a terminal is
// asked first (unless --yes); a pipe or a script is not.

const { Option, UsageError } = require('../../lib/cli.js')
const { calls, optionsOf, valuesOf, jsonOption } = require('../../lib/options.js')
const { SPELLINGS } = require('../../../human/ids.js')
const { client, sessionsNamed, ALL } = require('../../lib/api.js')
const { print, printJson } = require('../../lib/output.js')
const { absoluteDate, plural } = require('../../lib/format.js')
const { AgentMuxError, BUILT_IN_AGENTS } = require('../../../index.js')

module.exports = (command) =>
  command
    .description('delete the kept copies of these sessions, or of those last updated before a date')
    .usage('[options] <session>… | --before <date>')
    .argument('[session...]', `the sessions: ${SPELLINGS}`)
    .addOptions(optionsOf(calls.forget))
    .addOption(new Option('--yes', 'do not ask first (a pipe, a script or --json is never asked)'))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nForget deletes amux\'s copies. A session whose source the agent still holds is kept again\n' +
        'the next time amux reads it while keeping is on (it is still in the agent\'s store): to stop\n' +
        'keeping, run `amux keep off` first.\n',
    )
    .action(forget)

async function forget(words = [], o) {
  const { before } = valuesOf(calls.forget, o)
  if (words.length === 0 && !before) throw new UsageError('name the sessions to forget, or give --before <date>')
  const api = client()
  // `claude 90c192cf` is one session in two words.
  const named = words.length ? await sessionsNamed(words, words.filter((w) => !BUILT_IN_AGENTS.includes(w)).length) : []
  const ids = named.map((s) => api.sessions.resolveUnifiedId(s.agent, s.sessionId))
  if (!o.yes && !o.json && process.stdin.isTTY && process.stderr.isTTY) {
    const lost = await lostForGood(api, ids, before)
    const what = [ids.length && plural(ids.length, 'session'), before && `every session last updated before ${absoluteDate(before)}`].filter(Boolean).join(' and ')
    const warning = lost > 0 ? ` ${plural(lost, 'of them has', 'of them have')} no source any more and will be gone for good.` : ''
    if (!(await confirm(`Forget the kept copies of ${what}?${warning} [y/N] `))) {
      throw new AgentMuxError('ABORTED', 'nothing forgotten (answer y, or pass --yes)')
    }
  }
  const result = await api.keep.forget({ ...(ids.length ? { ids } : {}), ...(before ? { before } : {}) })
  if (o.json) return printJson(result)
  print(result.forgotten === 0 ? 'nothing kept matched: nothing forgotten' : `forgot ${plural(result.forgotten, 'kept session')}`)
}

/** How many of the sessions to forget are archived: their kept copy is all that is left of them. */
async function lostForGood(api, ids, before) {
  const archived = await api.sessions.listAll({ archived: 'only', limit: ALL })
  return archived.filter((s) => ids.includes(s.unifiedId) || (before && s.updatedAt < before)).length
}

/** The person's answer to `question` on the terminal: yes for y or yes. */
async function confirm(question) {
  const readline = require('node:readline/promises')
  const prompt = readline.createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim())
  } finally {
    prompt.close()
  }
}
