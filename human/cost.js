'use strict'
// A session's cost as a person reads it: where the agent recorded no token counts (Cursor's stores
// keep none), its $0.00 means unknown, not free, and every report says so.

const tokens = (c) => c.inputTokens + c.outputTokens + (c.thinkingTokens ?? 0) + (c.cachedTokens ?? 0)

/** A session that recorded no token counts: its cost is unknown rather than zero. */
const recordedNoTokens = (s) => !s.cost || (s.cost.totalUsd === 0 && tokens(s.cost) === 0)

module.exports = { recordedNoTokens }
