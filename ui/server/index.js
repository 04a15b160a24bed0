'use strict'
// `amux ui`'s server: node's own http server on a loopback address, answering GET requests only,
// each checked by guard.js (Host and token) before anything else. Pages get the built page,
// /assets/ its files, /api/ JSON from the library (api.js). Nothing here writes to disk.

const http = require('node:http')
const net = require('node:net')
const { SECURITY_HEADERS, newToken, allowedHostnames, hostAllowed, tokenSource, tokenCookie } = require('./guard.js')
const { loadAssets, sendFile } = require('./assets.js')
const { createApi, failure } = require('./api.js')

// The page's own addresses (the page routes them itself): each gets the page.
const PAGES = new Set(['/', '/search', '/sessions', '/session', '/diff', '/cost', '/index'])

function sendJson(res, status, value, headers = {}) {
  const body = Buffer.from(JSON.stringify(value))
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store', ...headers })
  res.end(body)
}

// A peer on this machine: 127.0.0.0/8, ::1, or either as an IPv4-mapped IPv6 address.
const isLoopback = (address) => typeof address === 'string' && (/^(::ffff:)?127\./.test(address) || address === '::1')

const sendFailure = (res, status, code, message, headers) => sendJson(res, status, failure(status, code, message).json, headers)

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve(server.address().port)
    })
  })
}

// The URL to print: a wildcard address is reached through the loopback one.
function urlHost(host) {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::' || host === '[::]') return '[::1]'
  return net.isIPv6(host) ? `[${host}]` : host
}

/**
 * Start the server with `client` (one createClient() for its whole life; `progress()` its index's
 * latest progress report, when it was made with `onProgress`). Resolves to `{ url, port, token,
 * close() }`; `url` carries the token.
 */
async function startUi({ client, progress, host = '127.0.0.1', port = 0, assets = loadAssets() }) {
  const token = newToken()
  const answer = createApi(client, progress)
  let bound = port
  let hostnames

  async function handle(req, res) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value)
    if (!hostAllowed(req.headers.host, hostnames, bound)) {
      return sendFailure(res, 403, 'FORBIDDEN', 'this server answers only requests addressed to it by its own address or localhost')
    }
    let url
    try {
      url = new URL(req.url, 'http://localhost')
    } catch {
      return sendFailure(res, 400, 'VALIDATION_ERROR', 'not a valid request path')
    }
    const source = tokenSource(req, url, token, bound)
    if (!source) return sendFailure(res, 403, 'FORBIDDEN', 'a valid token is required: open the URL `amux ui` printed')
    if (req.method !== 'GET') return sendFailure(res, 405, 'METHOD_NOT_ALLOWED', 'only GET is answered: the UI reads, it never changes anything', { Allow: 'GET' })

    if (url.pathname.startsWith('/api/')) {
      // A request the page gave up (a newer keystroke's search aborts the one before) closes
      // before it is answered: its work is given up too.
      const gaveUp = new AbortController()
      res.on('close', () => res.writableFinished || gaveUp.abort())
      const out = await answer(url, { local: isLoopback(req.socket.remoteAddress), signal: gaveUp.signal })
      if (out.json !== undefined) return sendJson(res, out.status, out.json)
      const body = Buffer.from(out.body, 'utf8')
      res.writeHead(out.status, { ...out.headers, 'Content-Length': body.length, 'Cache-Control': 'no-store' })
      return res.end(body)
    }
    const file = assets.files.get(url.pathname)
    if (file) return sendFile(req, res, file)
    if (!PAGES.has(url.pathname)) return sendFailure(res, 404, 'NOT_FOUND', `nothing at ${url.pathname}`)
    if (source === 'query') {
      // The printed URL: keep the token in a cookie and take it out of the address bar (and so out
      // of the history, bookmarks and screenshots).
      url.searchParams.delete('token')
      res.writeHead(303, { 'Set-Cookie': tokenCookie(token, bound), Location: url.pathname + url.search, 'Cache-Control': 'no-store' })
      return res.end()
    }
    return sendFile(req, res, assets.page)
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      process.stderr.write(`amux ui: internal error: ${error?.stack ?? error}\n`)
      if (!res.headersSent) sendFailure(res, 500, 'INTERNAL', 'internal error')
      else res.destroy()
    })
  })
  bound = await listen(server, port, host)
  hostnames = allowedHostnames(host)
  const url = `http://${urlHost(host)}:${bound}/?token=${token}`
  const close = () =>
    new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections?.()
    })
  return { url, port: bound, token, server, close }
}

module.exports = { startUi }
