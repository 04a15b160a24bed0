'use strict'
// amux sessions share <session>: the session as one self-contained HTML file, secrets redacted
// (unless --no-redact), written to <agent>-<id>.html here or to -o <file> (`-o -`: stdout). An
// existing file is left as it is unless --force: a share file made before is not lost to a typo.

const { writeFileSync } = require('node:fs')
const { resolve } = require('node:path')
const { Option } = require('../../lib/cli.js')
const { calls, optionsOf } = require('../../lib/options.js')
const { SPELLINGS } = require('../../../human/ids.js')
const { client, sessionsNamed } = require('../../lib/api.js')
const { print } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')

module.exports = (command) =>
  command
    .description('write one session as a self-contained HTML file to send, secrets redacted')
    .usage('[options] <agent>:<id> | <agent> <id> | <id-prefix>')
    .argument('<session...>', `the session: ${SPELLINGS}`)
    .addOptions(optionsOf(calls.share))
    .addOption(new Option('--no-redact', 'leave secrets in (the file then holds every key and token the session saw)'))
    .addOption(new Option('--force', 'overwrite the file if it exists'))
    .action(share)

// The name the share file's lineage links name a related session's file by (render/share.js).
const defaultName = (agent, sessionId) => `${agent}-${sessionId}.html`.replace(/[^A-Za-z0-9._-]/g, '_')

async function share(words, o) {
  const [{ agent, sessionId }] = await sessionsNamed(words, 1)
  const redact = !o.noRedact
  const html = await withProgress(`sharing ${agent}:${sessionId}`, client().sessions.export(agent, sessionId, 'html', { redact }))
  if (o.output === '-') return print(html)
  const path = resolve(o.output ?? defaultName(agent, sessionId))
  try {
    // 'wx' refuses an existing file in the same step that creates it; 0600: the file may hold
    // what the session saw until its owner decides to send it.
    writeFileSync(path, html, { mode: 0o600, flag: o.force ? 'w' : 'wx' })
  } catch (error) {
    throw writeError(error, path)
  }
  print(path)
  if (!redact) process.stderr.write('amux: note: not redacted: the file holds the session as it is, secrets included\n')
}

function writeError(error, path) {
  const { AgentMuxError } = require('../../../index.js')
  const why = error.code === 'EEXIST' ? `${path} exists: --force overwrites it, -o names another file` : `cannot write ${path}: ${error.message}`
  return new AgentMuxError(error.code === 'EEXIST' ? 'VALIDATION_ERROR' : 'INTERNAL', why)
}
