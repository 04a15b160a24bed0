import { describe, it, expect } from 'vitest'
import { createRequire } from 'node:module'

// amux's own text output: off the API's exports, reached as the CLI reaches it (require).
const cjs = createRequire(import.meta.url)('../index.js')
const { createClient, AgentMuxError } = cjs

describe('tsv.rows: any rows by the rules of the piped session lists', () => {
  const { tsv } = cjs.textOutput(createClient())
  it('writes dates as ISO 8601, numbers to a millionth, absent values empty, breaks as spaces', () => {
    const at = new Date('2026-01-02T03:04:05.678Z')
    expect(tsv.rows([['a\tb\r\nc', at, 0.1 + 0.2, 1234567, undefined, null, Number.NaN, true], []])).toBe(
      'a b  c\t2026-01-02T03:04:05.678Z\t0.3\t1234567\t\t\t\ttrue\n\n',
    )
    expect(tsv.rows([])).toBe('')
    // JS's toFixed rounds an exact tie away from zero, and so do the lines
    expect(tsv.rows([[1 / 128, -1 / 128]])).toBe('0.007813\t-0.007813\n')
  })
  it('throws VALIDATION_ERROR for anything but rows of plain values', () => {
    for (const bad of [undefined, 'a', ['a'], [[{ x: 1 }]], [[[1]]]]) {
      let thrown
      try {
        tsv.rows(bad)
      } catch (err) {
        thrown = err
      }
      expect(thrown, JSON.stringify(bad)).toBeInstanceOf(AgentMuxError)
      expect(thrown.code).toBe('VALIDATION_ERROR')
    }
  })
})
