'use strict'
// The command that continues a session in its own agent, for the session page's "copy" box. Each
// agent's CLI takes the id its store uses (ours is that id). Pi wants the session file's path and
// OpenClaw has no interactive resume, so they get none. Agents keep sessions per project, so the
// command starts in the session's directory.

const RESUME = {
  claude: (id) => ['claude', '--resume', id],
  codex: (id) => ['codex', 'resume', id],
  gemini: (id) => ['gemini', '--resume', id],
  copilot: (id) => ['copilot', '--resume', id],
  cursor: (id) => ['cursor-agent', '--resume', id],
  opencode: (id) => ['opencode', '--session', id],
  omp: (id) => ['omp', '--resume', id],
  hermes: (id) => ['hermes', '--resume', id],
}

// POSIX shell quoting: a word of safe characters as it is, anything else in single quotes.
const quote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** A shell command line that resumes the session, or null where its agent has none. */
function resumeCommand({ agent, sessionId, cwd }) {
  const argv = RESUME[agent]?.(sessionId)
  if (!argv) return null
  const command = argv.map(quote).join(' ')
  return cwd ? `cd ${quote(cwd)} && ${command}` : command
}

module.exports = { resumeCommand }
