'use strict'
// The page's files, as `npm run build:ui` wrote them into ui/dist (shipped in the npm package):
// read once at start, kept in memory with a gzip copy. Their names carry a hash of their content,
// so the browser may keep them for good; index.html, which names them, is never cached.

const { readFileSync, readdirSync, existsSync } = require('node:fs')
const { gzipSync } = require('node:zlib')
const { join, extname } = require('node:path')

const DIST = join(__dirname, '..', 'dist')

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
}

function entry(path, cache) {
  const body = readFileSync(path)
  return { body, gzip: gzipSync(body, { level: 9 }), type: TYPES[extname(path)] ?? 'application/octet-stream', cache }
}

/** The built page: `page` (index.html) and `files` (URL path → entry) from `dir`. */
function loadAssets(dir = DIST) {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new Error(`the page is not built (${join(dir, 'index.html')} is missing): run \`npm run build:ui\``)
  }
  const files = new Map()
  for (const name of readdirSync(join(dir, 'assets'))) {
    files.set(`/assets/${name}`, entry(join(dir, 'assets', name), 'public, max-age=31536000, immutable'))
  }
  return { page: entry(join(dir, 'index.html'), 'no-store'), files }
}

/** Send `file`, compressed when the browser takes gzip. */
function sendFile(req, res, file) {
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
  const body = gzip ? file.gzip : file.body
  res.writeHead(200, {
    'Content-Type': file.type,
    'Content-Length': body.length,
    'Cache-Control': file.cache,
    Vary: 'Accept-Encoding',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  })
  res.end(body)
}

module.exports = { loadAssets, sendFile, DIST }
