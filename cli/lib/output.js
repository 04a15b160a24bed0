'use strict'
// How a command's result reaches stdout: drawn for a person on a terminal, tab-separated lines on
// a pipe or a file, JSON with --json.

const { colorEnabled, painter, terminalWidth } = require('./format.js')

/** How to draw for stdout: `tty` false means a pipe or a file, which gets the tab-separated forms. */
function view({ wide = false } = {}) {
  const tty = Boolean(process.stdout.isTTY)
  return {
    tty,
    wide,
    width: terminalWidth(process.stdout),
    height: process.stdout.rows > 0 ? process.stdout.rows : 24,
    paint: painter(tty && colorEnabled(process.stdout)),
    now: Date.now(),
  }
}

/** `text`, a string or UTF-8 bytes (a Buffer from the API's `json`), ending with a newline. */
function print(text) {
  // Two writes rather than `${text}\n`: a report's JSON is megabytes, and joining copies it.
  process.stdout.write(text)
  const ends = typeof text === 'string' ? text.endsWith('\n') : text[text.length - 1] === 0x0a
  if (!ends) process.stdout.write('\n')
}

function printJson(value) {
  // Dates serialise as ISO 8601 strings, as in the API's own json export.
  print(JSON.stringify(value, null, 2))
}

module.exports = { view, print, printJson }
