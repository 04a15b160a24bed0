'use strict'
// recent_activity: what the agents did in a period, per project (the library's recap): the
// sessions, the files they edited with the lines changed, the cost. A stand-up for the model.

const { z, toolInput, defined } = require('../schemas.js')
const { usd } = require('../../human/cost.js')
const { calls } = require('../../params/index.js')

const description = `What the coding agents on this machine did recently (default: the last 24 hours; \`since\` for longer, e.g. 7d), per project (a git repository: its worktrees and subdirectories are one project): the sessions with their titles and agents, the files they edited with the lines added and removed, and the cost. Each session comes with its id for read_session.`

const { params, input } = toolInput(calls.recap)

const output = z.object({
  since: z.string(),
  until: z.string().optional(),
  sessionCount: z.number(),
  totalUsd: z.number(),
  projects: z.array(
    z.object({
      project: z.string().describe("the project's directory; '' for sessions that record none"),
      name: z.string(),
      agents: z.array(z.string()),
      totalUsd: z.number(),
      linesAdded: z.number(),
      linesRemoved: z.number(),
      lastActive: z.string(),
      sessions: z.array(
        z.object({
          id: z.string(),
          agent: z.string(),
          title: z.string(),
          updatedAt: z.string(),
          costUsd: z.number().optional(),
          children: z.number().optional().describe('sub-agent sessions folded into this one'),
        }),
      ),
      files: z.array(
        z.object({
          path: z.string(),
          edits: z.number(),
          added: z.number(),
          removed: z.number(),
          sessionCount: z.number().describe('how many sessions edited it'),
          sessions: z.array(z.string()).describe('the newest of them (ids for read_session); files_touched lists every one'),
        }),
      ),
    }),
  ),
})

async function run(args, { client }) {
  const r = await client.sessions.recap(args)
  const structured = defined({
    since: r.since.toISOString(),
    until: r.until?.toISOString(),
    sessionCount: r.sessionCount,
    totalUsd: Number(r.totalUsd.toFixed(6)),
    projects: r.projects.map((p) => ({
      project: p.project,
      name: p.name,
      agents: p.agents,
      totalUsd: Number(p.totalUsd.toFixed(6)),
      linesAdded: p.linesAdded,
      linesRemoved: p.linesRemoved,
      lastActive: p.lastActive.toISOString(),
      sessions: p.sessions.map((s) =>
        defined({
          id: s.unifiedId,
          agent: s.agent,
          title: s.title,
          updatedAt: s.updatedAt.toISOString(),
          costUsd: s.costUsd === undefined ? undefined : Number(s.costUsd.toFixed(6)),
          children: s.children,
        }),
      ),
      files: p.files.map(({ path, edits, added, removed, sessionCount, sessions }) => ({ path, edits, added, removed, sessionCount, sessions })),
    })),
  })
  return { text: text(structured), structured }
}

function text(r) {
  if (r.projects.length === 0) return `No session was active since ${r.since}.`
  const lines = [`${r.sessionCount} session${r.sessionCount === 1 ? '' : 's'} since ${r.since}, ${usd(r.totalUsd)}:`]
  for (const p of r.projects) {
    lines.push('', `## ${p.name || '(no directory)'} ${p.project ? `(${p.project})` : ''} · ${p.agents.join(', ')} · ${usd(p.totalUsd)}`)
    for (const s of p.sessions) {
      const facts = [s.agent, `updated ${s.updatedAt}`, s.children && `${s.children} sub-agent${s.children === 1 ? '' : 's'}`, s.costUsd !== undefined && usd(s.costUsd)]
      lines.push(`- ${s.id} · ${s.title || '(untitled)'} · ${facts.filter(Boolean).join(' · ')}`)
    }
    if (p.files.length) lines.push(`files edited (+${p.linesAdded} -${p.linesRemoved}):`)
    for (const f of p.files) {
      const by = `${f.sessionCount} session${f.sessionCount === 1 ? '' : 's'}${f.sessions.length ? `: ${f.sessions.join(', ')}${f.sessionCount > f.sessions.length ? ', …' : ''}` : ''}`
      lines.push(`- ${f.path} (+${f.added} -${f.removed}, ${f.edits} edit${f.edits === 1 ? '' : 's'}, by ${by})`)
    }
  }
  return lines.join('\n')
}

module.exports = { name: 'recent_activity', title: 'Recent activity per project', description, params, input, output, run }
