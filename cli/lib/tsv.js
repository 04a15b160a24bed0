'use strict'
// Output for scripts, used when stdout is not a terminal (as `gh` does): one line per row, fields
// separated by tabs, every value in full (full ids, ISO 8601 dates, plain numbers), no header, no
// footer, no colour, so `cut -f`, `sort` and `wc -l` work. Each function returns the text for
// stdout ('' when there are no rows). The fields are the table's columns, in the table's order;
// the API's `tsv.rows` writes them, by the rules its session lists follow (`tsv.list`).

const { client } = require('./api.js')

const lines = (rows) => client().tsv.rows(rows)

/** agent:id, updated, score, cost (USD), title, snippet (hits marked >>>like this<<<). */
function searchResults(sessions) {
  return lines(sessions.map((s) => [s.unifiedId, s.updatedAt, s.relevanceScore, s.cost?.totalUsd, s.title, s.snippet]))
}

/** group (the API's key: '' for untagged or no model), sessions, input, output, thinking, cached, cost; then TOTAL. */
function costReport(summary, groups) {
  const row = (key, c) => [key, c.sessionCount, c.inputTokens, c.outputTokens, c.thinkingTokens, c.cachedTokens, c.totalUsd]
  return lines([...groups.map((g) => row(g.key, g)), row('TOTAL', summary)])
}

/** type, index in A, index in B, role, A's text, B's text (each empty where that side has none). */
function sessionDiff(diff, gist) {
  return lines(
    diff.operations.map((op) => [
      op.type,
      op.indexA,
      op.indexB,
      (op.messageB ?? op.messageA)?.role,
      op.messageA ? gist(op.messageA) : '',
      op.messageB ? gist(op.messageB) : '',
    ]),
  )
}

/** One line per touch: agent:id, at, action, path, lines added, lines removed, message index, request. */
function touched(sessions) {
  return lines(sessions.flatMap((s) => s.touches.map((t) => [s.unifiedId, t.at, t.action, t.path, t.added, t.removed, t.messageIndex, t.request])))
}

module.exports = { searchResults, costReport, sessionDiff, touched }
