'use strict'
// Keeping, as the front ends say it: what an agent's own retention will delete that amux has not
// kept (`client.keep.status()`'s `retention`), in the same words from `amux keep status`,
// `amux doctor` and the UI's index page.

const plural = (n, one, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/**
 * One agent's retention (`{ agent, days, atRisk }`) as a sentence: "claude deletes sessions older
 * than 30 days: 12 sessions not kept are at risk".
 */
function retentionSentence({ agent, days, atRisk }) {
  const rule = days === null || days === undefined ? `${agent} deletes sessions` : `${agent} deletes sessions older than ${plural(days, 'day')}`
  if (!atRisk) return `${rule}: no session that is not kept is at risk`
  return `${rule}: ${plural(atRisk, 'session')} not kept ${atRisk === 1 ? 'is' : 'are'} at risk`
}

/** The retentions of `status` that will delete sessions amux has not kept. */
const atRisk = (status) => (status?.retention ?? []).filter((r) => r.atRisk > 0)

/** What keeps them, when something is at risk and keeping is off: the command, and what it does. */
const KEEP_COMMAND = 'amux keep on'
const KEEP_EFFECT = 'keeps a copy of every session, which then outlives the agent deleting it'
const KEEP_HINT = `\`${KEEP_COMMAND}\` ${KEEP_EFFECT}`

module.exports = { retentionSentence, atRisk, KEEP_COMMAND, KEEP_EFFECT, KEEP_HINT }
