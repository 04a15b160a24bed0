'use strict'
// "Still working" feedback on stderr, only for a terminal and only once a call has taken longer
// than `delayMs`: quick commands print nothing extra, pipes and --json output stay clean.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const BAR = 20

// The index's latest report (`createClient({ onProgress })`), drawn as a bar after the label.
let latest = null

/** Record an index progress report `{ agent, done, total }` for the line being drawn. */
function report(progress) {
  latest = progress
}

function bar() {
  if (!latest || !latest.total) return ''
  const filled = Math.round((BAR * latest.done) / latest.total)
  const what = latest.agent === 'sync' ? 'sessions written' : `indexing ${latest.agent}`
  return ` [${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${what} ${latest.done}/${latest.total}`
}

/**
 * Resolve to what `promise` resolves to, drawing a spinner with `label` and the elapsed time on
 * `stream` while it is pending beyond `delayMs`. The line is erased before the promise settles to
 * the caller, so the result is printed on a clean line.
 */
async function withProgress(label, promise, { stream = process.stderr, delayMs = 1000, intervalMs = 100 } = {}) {
  if (!stream.isTTY) return promise
  latest = null
  const started = Date.now()
  let frame = 0
  let drawn = false
  let ticker
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    stream.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s${bar()}`)
    drawn = true
  }
  const starter = setTimeout(() => {
    draw()
    ticker = setInterval(draw, intervalMs)
  }, delayMs)
  try {
    return await promise
  } finally {
    clearTimeout(starter)
    clearInterval(ticker)
    if (drawn) stream.write('\r\x1b[K')
  }
}

module.exports = { withProgress, report }
