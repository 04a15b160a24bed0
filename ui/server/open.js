'use strict'
// Opening the printed URL in the user's browser, where there is a desktop to open it on: macOS and
// Windows always, elsewhere only with an X or Wayland display (over SSH there is none, and the URL
// printed is what the user needs). A failure to open is not an error: the URL is printed anyway.

const { spawn } = require('node:child_process')
const os = require('node:os')

/** The command that opens `url`, or null where there is no desktop. */
function openerFor(url, platform = process.platform, env = process.env) {
  if (platform === 'darwin') return ['open', [url]]
  // `start`'s first quoted argument is a window title: give it an empty one.
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return ['xdg-open', [url]]
  return null
}

function realHome() {
  try {
    return os.userInfo().homedir
  } catch {
    return process.env.HOME
  }
}

/** Open `url`; true when an opener was started. */
function openBrowser(url) {
  const opener = openerFor(url)
  if (!opener) return false
  try {
    // The browser is the user's own: it gets their real home, not a HOME pointed at a sessions
    // home (as the demo does), where it would write its profile.
    const env = { ...process.env, HOME: realHome() }
    const child = spawn(opener[0], opener[1], { stdio: 'ignore', detached: true, windowsHide: true, env })
    child.on('error', () => {})
    child.unref()
    return true
  } catch {
    return false
  }
}

module.exports = { openBrowser, openerFor }
