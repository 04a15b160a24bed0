// The two files that once took list + search + totalCost to 4 GB of RSS (issue 18), generated on
// demand and never committed: a Codex `.jsonl.zst` rollout that inflates to one 3 GB line (a zstd
// bomb of about 100 KB) and a plain 1.2 GB single-line Claude transcript. Both are written
// streaming, so making them costs no memory either.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const BOMB_ID = '0b0b0b0b-0000-4000-8000-000000000003'
export const HUGE_ID = '0b0b0b0b-0000-4000-8000-000000000012'
export const BOMB_BYTES = 3 * 2 ** 30
export const HUGE_BYTES = 1.2 * 2 ** 30

const BLOCK = 128 * 1024 // the largest zstd block

function blockHeader(last, type, size) {
  const v = (last ? 1 : 0) | (type << 1) | (size << 3)
  return Buffer.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff])
}

// One zstd frame written by hand: `head` as a raw block, `fill` repeated `count` times as
// run-length blocks (4 bytes for 128 KB each), `tail` as the last raw block. No content size in
// the header, so a reader learns how large it is only by inflating it.
function writeZstd(fd, head, fill, count, tail) {
  writeSync(fd, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])) // magic, no FCS, window 128 KB
  writeSync(fd, Buffer.concat([blockHeader(false, 0, head.length), head]))
  const rle = Buffer.concat([blockHeader(false, 1, BLOCK), Buffer.from([fill])])
  const many = Buffer.concat(Array(1024).fill(rle))
  let left = count
  for (; left >= 1024 * BLOCK; left -= 1024 * BLOCK) writeSync(fd, many)
  for (; left >= BLOCK; left -= BLOCK) writeSync(fd, rle)
  const rest = Buffer.concat([Buffer.alloc(left, fill), tail])
  writeSync(fd, Buffer.concat([blockHeader(true, 0, rest.length), rest]))
}

function jsonLine(head, fillBytes) {
  return { head: Buffer.from(head), fillBytes, tail: Buffer.from('"}]}}\n') }
}

/** Write the pair into `home`; returns their paths. */
export function writeHostilePair(home) {
  const codexDir = join(home, '.codex', 'sessions', '2026', '01', '02')
  const claudeDir = join(home, '.claude', 'projects', '-w-hostile')
  mkdirSync(codexDir, { recursive: true })
  mkdirSync(claudeDir, { recursive: true })

  const bomb = join(codexDir, `rollout-2026-01-02T03-04-05-${BOMB_ID}.jsonl.zst`)
  const b = jsonLine(
    '{"timestamp":"2026-01-02T03:04:05.000Z","type":"response_item","payload":{"type":"message",' +
      '"role":"user","content":[{"type":"input_text","text":"',
    BOMB_BYTES,
  )
  let fd = openSync(bomb, 'w')
  writeZstd(fd, b.head, 0x61, b.fillBytes, b.tail)
  closeSync(fd)

  const huge = join(claudeDir, `${HUGE_ID}.jsonl`)
  const h = jsonLine(
    `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"${HUGE_ID}",` +
      '"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"user","content":[{"type":"text","text":"',
    HUGE_BYTES,
  )
  fd = openSync(huge, 'w')
  writeSync(fd, h.head)
  const mb = Buffer.alloc(1 << 20, 'a')
  for (let left = h.fillBytes; left > 0; left -= mb.length) writeSync(fd, left >= mb.length ? mb : mb.subarray(0, left))
  writeSync(fd, h.tail)
  closeSync(fd)
  return { bomb, huge }
}
