'use strict'
// The known word a mistyped one most likely meant: what the CLI suggests for an unknown command and
// the front ends for an unknown parameter. Requires nothing, so the CLI's parser loads it cheaply.

/** The word of `known` nearest to `word`, if one is within two edits (the first of equals). */
function nearest(word, known) {
  let best
  let bestDistance = 3
  for (const k of known) {
    const d = distance(word, k)
    if (d < bestDistance) [best, bestDistance] = [k, d]
  }
  return best
}

// Levenshtein distance, one row at a time.
function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]
}

module.exports = { nearest }
