'use strict'
// files_touched: the library's `sessions.touched`: which past sessions edited, wrote, read,
// deleted or ran a command on a file, each touch with the request that led to it.

const { z, toolInput, defined } = require('../schemas.js')
const { calls } = require('../../params/index.js')

const description = `Which past coding-agent sessions on this machine touched a file (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, OpenCode, Pi, omp, OpenClaw, Hermes): who edited, wrote, read or deleted it, or ran a command on it, when, and the user's request that led to it.
\`path\` is an absolute path or a glob (* within a directory, ** across directories; a glob starting with ** matches anywhere, e.g. **/auth.ts). A relative one is taken from the server's working directory.
Sessions come newest first, each with its id for read_session and its touches (action, path, lines added and removed, the message index to read around).`

const { params, input } = toolInput(calls.touched)

const touch = z.object({
  path: z.string(),
  action: z.enum(['edit', 'write', 'read', 'delete', 'command']),
  at: z.string().optional().describe('ISO 8601, where the agent records it'),
  messageIndex: z.number().describe('the message holding the tool call (read_session can start there)'),
  added: z.number().optional(),
  removed: z.number().optional(),
  request: z.string().optional().describe("the first line of the user's request that led to it"),
})

const session = z.object({
  id: z.string().describe('the unified id (agent:native-id): what read_session takes'),
  agent: z.string(),
  title: z.string(),
  cwd: z.string().optional(),
  updatedAt: z.string().describe('ISO 8601'),
  touches: z.array(touch),
})

const output = z.object({ path: z.string(), sessions: z.array(session) })

async function run(args, { client }) {
  const { path, ...options } = args
  const found = await client.sessions.touched(path, options)
  const sessions = found.map((s) =>
    defined({
      id: s.unifiedId,
      agent: s.agent,
      title: s.title,
      cwd: s.cwd,
      updatedAt: s.updatedAt.toISOString(),
      touches: s.touches.map((t) =>
        defined({
          path: t.path,
          action: t.action,
          at: t.at ? t.at.toISOString() : undefined,
          messageIndex: t.messageIndex,
          added: t.added,
          removed: t.removed,
          request: t.request,
        }),
      ),
    }),
  )
  return { text: render(path, sessions), structured: { path, sessions } }
}

function render(path, sessions) {
  if (!sessions.length) return `No session touched ${JSON.stringify(path)}.`
  const lines = [`${sessions.length} session${sessions.length === 1 ? '' : 's'} touched ${JSON.stringify(path)}, newest first:`]
  sessions.forEach((s, i) => {
    lines.push('')
    lines.push(`${i + 1}. ${s.id}`)
    lines.push(`   ${s.title || '(untitled)'}`)
    lines.push(`   ${[`updated ${s.updatedAt}`, s.cwd && `in ${s.cwd}`].filter(Boolean).join(' · ')}`)
    for (const t of s.touches) {
      const changed = t.added !== undefined || t.removed !== undefined ? ` (+${t.added ?? 0} -${t.removed ?? 0})` : ''
      lines.push(`   - ${t.action} ${t.path}${changed} at message ${t.messageIndex}${t.at ? `, ${t.at}` : ''}`)
      if (t.request) lines.push(`     asked: ${t.request}`)
    }
  })
  return lines.join('\n')
}

module.exports = { name: 'files_touched', title: 'Sessions that touched a file', description, params, input, output, run }
