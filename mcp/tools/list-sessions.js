'use strict'
// list_sessions: the newest sessions of one agent or of every agent, as the model reads them.

const { z, toolInput, defined, sessionFields, OWN_SESSION_NOTE } = require('../schemas.js')
const { withoutOwn } = require('../own-session.js')
const { ARCHIVED } = require('../session-text.js')
const { calls } = require('../../params/index.js')

const description = `List past coding-agent sessions on this machine, newest first (last update; \`sort\` for the costliest or longest), of every agent or one: Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, OpenCode, Pi, omp, OpenClaw, Hermes. Each comes with its id for read_session. To find sessions about something, use search_sessions instead.
${OWN_SESSION_NOTE}`

const { params, input } = toolInput(calls.list)

const session = z.object({
  ...sessionFields,
  messageCount: z.number(),
  turnCount: z.number(),
  model: z.string().optional(),
  costUsd: z.number().optional().describe('absent when the agent recorded no token counts'),
})

const output = z.object({ sessions: z.array(session) })

async function run(args, { client, own }) {
  const { agent, includeOwnSession, limit, ...options } = args
  const api = client.sessions
  const find = (n) => (agent ? api.list(agent, { ...options, limit: n }) : api.listAll({ ...options, limit: n }))
  const found = includeOwnSession ? await find(limit) : await withoutOwn(own, find, limit)
  const sessions = found.map((s) =>
    defined({
      id: s.unifiedId,
      agent: s.agent,
      title: s.title,
      cwd: s.cwd,
      createdAt: s.createdAt.toISOString(),
      updatedAt: s.updatedAt.toISOString(),
      archived: s.archived,
      messageCount: s.messageCount,
      turnCount: s.turnCount,
      model: s.model,
      costUsd: s.cost ? Number(s.cost.totalUsd.toFixed(6)) : undefined,
    }),
  )
  return { text: render(sessions, args), structured: { sessions } }
}

function render(sessions, args) {
  const whose = args.agent ? `${args.agent} ` : ''
  if (!sessions.length) return `No ${whose}session matches.`
  const order = { date: 'newest first', cost: 'costliest first', turns: 'longest first' }[args.sort ?? 'date']
  const lines = [`${sessions.length} ${whose}session${sessions.length === 1 ? '' : 's'}, ${order}:`]
  for (const s of sessions) {
    const facts = [`updated ${s.updatedAt}`, `${s.messageCount} messages`, s.model, s.cwd && `in ${s.cwd}`, s.archived && ARCHIVED]
    lines.push(`- ${s.id} · ${s.title || '(untitled)'}`)
    lines.push(`  ${facts.filter(Boolean).join(' · ')}`)
  }
  return lines.join('\n')
}

module.exports = { name: 'list_sessions', title: 'List past sessions', description, params, input, output, run }
