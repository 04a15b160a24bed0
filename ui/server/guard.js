'use strict'
// Who may talk to the UI server, and the headers every answer carries. The server holds everything
// the agents ever saw, so a request must come to the address we bound (a page on another site that
// resolves its own name to 127.0.0.1, "DNS rebinding", sends its own Host and is refused) and carry
// the random token printed with the URL, as a query parameter once (then a cookie) or a header.
// No CORS header is ever sent, so no other origin can read an answer.

const { randomBytes, timingSafeEqual } = require('node:crypto')
const os = require('node:os')
const net = require('node:net')

// Only our own files run, style and connect; nothing is framed, embedded or posted. Trusted Types
// with no policy make any assignment of a string to innerHTML (or another HTML sink) throw, so
// session text can only ever reach the page as text.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ')

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

const newToken = () => randomBytes(24).toString('base64url')

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]'])

/** Host names (lower case, IPv6 bracketed) that requests may name: the bound address and localhost. */
function allowedHostnames(boundHost) {
  const names = new Set(['localhost', '127.0.0.1', '[::1]'])
  const bracket = (h) => (net.isIPv6(h) ? `[${h}]` : h)
  if (WILDCARDS.has(boundHost)) {
    // Bound to every interface: each of this machine's own addresses is "the bound address".
    for (const list of Object.values(os.networkInterfaces())) {
      for (const { address } of list ?? []) names.add(bracket(address.replace(/%.*$/, '')).toLowerCase())
    }
  } else {
    names.add(bracket(boundHost).toLowerCase())
  }
  return names
}

/** Whether a Host header names us: an allowed host name and the port we listen on. */
function hostAllowed(header, hostnames, port) {
  if (typeof header !== 'string') return false
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(header.trim())
  if (!m) return false
  const portNamed = m[2] === undefined ? 80 : Number(m[2])
  return hostnames.has(m[1].toLowerCase()) && portNamed === port
}

const cookieName = (port) => `amux-ui-${port}`

function cookies(header) {
  const out = new Map()
  for (const part of String(header ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i > 0) out.set(part.slice(0, i).trim(), part.slice(i + 1).trim())
  }
  return out
}

function sameSecret(given, token) {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Where the request's token came from: 'query' (?token=, the URL as printed), 'cookie', 'header'
 * (`Authorization: token …`, for scripts), or null when it carries none that matches.
 */
function tokenSource(req, url, token, port) {
  if (sameSecret(url.searchParams.get('token'), token)) return 'query'
  if (sameSecret(cookies(req.headers.cookie).get(cookieName(port)), token)) return 'cookie'
  const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')
  if (auth && sameSecret(auth[1], token)) return 'header'
  return null
}

/** The cookie that lets the page's own requests through after the first, tokened, visit. */
function tokenCookie(token, port) {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`
}

module.exports = { SECURITY_HEADERS, newToken, allowedHostnames, hostAllowed, tokenSource, tokenCookie }
