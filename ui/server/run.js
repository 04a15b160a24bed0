'use strict'
// What `amux ui` does: start the server on one long-lived client (every page after the first is
// answered warm), print the URL, open it where there is a desktop, and serve until interrupted.

const net = require('node:net')
const { createClient, AgentMuxError } = require('../../index.js')
const { startUi } = require('./index.js')
const { openBrowser } = require('./open.js')

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])

/**
 * Serve the UI on `host`:`port` (0: a free one), reading `source` (a team database's URL) when given. Resolves to the running server once listening;
 * SIGINT and SIGTERM close it.
 */
async function runUi({ host = '127.0.0.1', port = 0, open = true, source, out = process.stdout, err = process.stderr } = {}) {
  // The index's progress, for the page to show while a first call builds it (minutes on a large
  // home); kept a little after the last report so a page polling it sees the end.
  let latest = null
  const onProgress = (p) => {
    latest = { ...p, at: Date.now() }
  }
  const progress = () => (latest && Date.now() - latest.at < 5_000 ? latest : null)
  let ui
  try {
    // Redacted by default: a page is screenshotted, shared and shown; its session page's switch
    // reveals the secrets for the person at the screen (the API's redact=false).
    // `source`: a team database's URL (`amux --db`), read instead of this machine's agents; a
    // server lives, so it learns what changed in the stores from the OS's file events.
    const client = createClient({ onProgress, redact: true, watch: true, ...(source ? { source } : {}) })
    ui = await startUi({ client, progress, host, port })
  } catch (error) {
    if (error.code === 'EADDRINUSE') throw new AgentMuxError('VALIDATION_ERROR', `port ${port} is already in use on ${host}`)
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') throw new AgentMuxError('VALIDATION_ERROR', `cannot listen on ${host}: not an address of this machine`)
    if (error.code === 'EACCES') throw new AgentMuxError('VALIDATION_ERROR', `not allowed to listen on ${host}:${port}`)
    throw error
  }
  out.write(`amux ui: every agent's sessions, read-only, at\n\n    ${ui.url}\n\nThe token in the URL is the key: share it with no one. Stop with Ctrl-C.\n`)
  if (!LOOPBACK.has(host) && !(net.isIP(host) && host.startsWith('127.'))) {
    err.write(`amux ui: note: --host ${host} lets other machines reach this server (the token still guards it)\n`)
  }
  if (open && !openBrowser(ui.url)) err.write('amux ui: no desktop to open a browser on: open the URL above\n')
  const stop = () => ui.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return ui
}

module.exports = { runUi }
