'use strict'
// stdio for `amux mcp`: the SDK's StdioServerTransport, fed only well-formed messages. The SDK
// drops a line that is not JSON, or not JSON-RPC, with no answer; JSON-RPC 2.0 wants one: a parse
// error (-32700) for text that is not JSON, an invalid request (-32600) for JSON that is not a
// message. This filter sits between stdin and the transport and gives those answers.

const { Transform } = require('node:stream')
const { StdioServerTransport } = require('@modelcontextprotocol/server/stdio')
const { parseJSONRPCMessage } = require('@modelcontextprotocol/server')

// A line longer than this is not read whole (the SDK's own read buffer limit).
const MAX_LINE = 10 * 1024 * 1024

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600

/** The id a JSON-RPC error answer may name: the message's own when it has a usable one. */
function idOf(value) {
  const id = value && typeof value === 'object' && !Array.isArray(value) ? value.id : undefined
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
}

/**
 * Complete lines of stdin, each passed on when it is a JSON-RPC message and answered through
 * `reject(id, code, message)` when it is not. Blank lines are skipped.
 */
class MessageFilter extends Transform {
  constructor(reject) {
    super()
    this.reject = reject
    this.pending = ''
    this.skipping = false
  }

  _transform(chunk, _encoding, done) {
    const lines = (this.pending + chunk.toString('utf8')).split('\n')
    this.pending = lines.pop()
    for (const line of lines) this.line(line)
    if (this.pending.length > MAX_LINE) {
      if (!this.skipping) this.reject(null, PARSE_ERROR, `Parse error: message longer than ${MAX_LINE} bytes`)
      this.pending = ''
      this.skipping = true
    }
    done()
  }

  _flush(done) {
    if (this.pending) this.line(this.pending)
    done()
  }

  line(raw) {
    // The rest of a line too long to read, after which reading starts afresh.
    if (this.skipping) {
      this.skipping = false
      return
    }
    const line = raw.replace(/\r$/, '')
    if (!line.trim()) return
    let value
    try {
      value = JSON.parse(line)
    } catch (error) {
      return this.reject(null, PARSE_ERROR, `Parse error: ${error.message}`)
    }
    try {
      parseJSONRPCMessage(value)
    } catch {
      return this.reject(idOf(value), INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message')
    }
    this.push(`${line}\n`)
  }
}

/** The transport for one stdio connection, with malformed messages answered. */
function stdioTransport(stdin = process.stdin, stdout = process.stdout) {
  let transport
  const filter = new MessageFilter((id, code, message) => {
    transport.send({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => {})
  })
  stdin.pipe(filter)
  transport = new StdioServerTransport(filter, stdout)
  return transport
}

module.exports = { stdioTransport, MessageFilter }
