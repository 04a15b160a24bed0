'use strict'
// Long output on a terminal goes through a pager, as `git` does: $PAGER, else `less -R` (-R lets
// colour through). Short output, or PAGER set to '' or 'cat', is written directly.

const { spawn } = require('node:child_process')

/**
 * Write `text` to `stream`, through the pager when it takes more than `rows` rows. Resolves when
 * the pager has exited (the reader may quit early: that is no error) or the text is written.
 */
function page(text, { rows, rowsTaken, stream = process.stdout, env = process.env }) {
  const command = env.PAGER ?? 'less -R'
  if (!stream.isTTY || rowsTaken <= rows || command.trim() === '' || command.trim() === 'cat') {
    stream.write(text)
    return Promise.resolve()
  }
  return new Promise((resolve) => {
    // Through the shell, as git does: PAGER may carry options ('less -RS').
    // LESS=FRX (git's default) when unset: quit at the end, keep the screen, pass colour.
    const child = spawn(command, {
      shell: true,
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { LESS: 'FRX', ...env },
    })
    child.on('error', () => {
      // No such pager: the text is still wanted.
      stream.write(text)
      resolve()
    })
    child.stdin.on('error', () => {}) // the reader quit before reading everything
    child.on('close', (code) => {
      // 127: the shell found no such command; show the text rather than nothing.
      if (code === 127) stream.write(text)
      resolve()
    })
    child.stdin.end(text)
  })
}

module.exports = { page }
