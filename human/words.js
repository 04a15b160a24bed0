'use strict'
// Word-level difference of two one-line texts, for `sessions diff` and the UI's diff page: which
// words of A were removed and which words of B were added, so a changed message shows what changed
// rather than two copies of a line cut before the change.

// Past this many word pairs the middle is taken as replaced whole: the table would cut it anyway.
const MAX_CELLS = 250_000

// Words with the spaces after them: joining the tokens gives the text back.
const tokens = (text) => text.match(/\S+\s*|\s+/g) ?? []

/**
 * { a, b }: each side's tokens as [{ text, changed }], unchanged words the same on both sides.
 * A common head and tail are taken off first; the middle is aligned by longest common subsequence.
 */
function wordDiff(textA, textB) {
  const a = tokens(textA)
  const b = tokens(textB)
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const midA = a.slice(head, a.length - tail)
  const midB = b.slice(head, b.length - tail)
  const [keepA, keepB] = midA.length * midB.length <= MAX_CELLS ? lcs(midA, midB) : [new Set(), new Set()]
  const side = (all, mid, keep) => [
    ...all.slice(0, head).map((text) => ({ text, changed: false })),
    ...mid.map((text, i) => ({ text, changed: !keep.has(i) })),
    ...all.slice(all.length - tail).map((text) => ({ text, changed: false })),
  ]
  return { a: side(a, midA, keepA), b: side(b, midB, keepB), head }
}

// Indexes of a and of b that belong to one longest common subsequence (compared on the word, so a
// word that only gained or lost a trailing space still counts as kept).
function lcs(a, b) {
  const word = (t) => t.trimEnd()
  const n = a.length
  const m = b.length
  const len = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i][j] = word(a[i]) === word(b[j]) ? len[i + 1][j + 1] + 1 : Math.max(len[i + 1][j], len[i][j + 1])
    }
  }
  const keepA = new Set()
  const keepB = new Set()
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (word(a[i]) === word(b[j])) {
      keepA.add(i++)
      keepB.add(j++)
    } else if (len[i + 1][j] >= len[i][j + 1]) i++
    else j++
  }
  return [keepA, keepB]
}

/**
 * One side of a word diff as a line: changed words marked by `mark` (colour, or [-…-]/{+…+}
 * brackets), starting `context` words before the first change with a leading '…' when words were
 * left out, so the change is within the first columns of the cell.
 */
function sideLine(parts, head, mark, context = 3) {
  const start = Math.max(0, head - context)
  const shown = parts.slice(start)
  let out = start > 0 ? '…' : ''
  for (let i = 0; i < shown.length; ) {
    if (!shown[i].changed) {
      out += shown[i++].text
      continue
    }
    let run = ''
    while (i < shown.length && shown[i].changed) run += shown[i++].text
    // the spaces after a changed run stay outside the mark, so `[-old-] next` reads as words
    const words = run.trimEnd()
    out += mark(words) + run.slice(words.length)
  }
  return out
}

module.exports = { wordDiff, sideLine }
