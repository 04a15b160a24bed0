// Does a built addon carry debug info? A release binary must not (Cargo's release profile strips
// it; a debug build is ~85 MB of it). Reads the section table of the three formats we ship, all
// 64-bit little-endian: ELF (Linux), Mach-O (macOS) and PE (Windows; MSVC keeps debug info in a
// separate .pdb, so a PE with .debug sections was built some other way).
//
//   node scripts/release/debug-info.mjs <file.node>...   exits 1 naming each file that has some
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Names of the sections of a binary. Throws on a format this project does not ship. */
export function sectionNames(buf) {
  if (buf.readUInt32BE(0) === 0x7f454c46) return elfSections(buf)
  if (buf.readUInt32LE(0) === 0xfeedfacf) return machoSections(buf)
  if (buf.readUInt16LE(0) === 0x5a4d) return peSections(buf)
  throw new Error('not a 64-bit ELF, Mach-O or PE binary')
}

/** The sections that hold debug info (DWARF in ELF, Mach-O or MinGW PE). */
export function debugSections(buf) {
  return sectionNames(buf).filter((name) => /^(\.debug_|__debug_|__DWARF|\.zdebug_)/.test(name))
}

const cString = (buf, start, max = buf.length - start) => {
  const end = buf.indexOf(0, start)
  return buf.toString('latin1', start, end < 0 || end > start + max ? start + max : end)
}

function elfSections(buf) {
  if (buf[4] !== 2 || buf[5] !== 1) throw new Error('not a 64-bit little-endian ELF')
  const shoff = Number(buf.readBigUInt64LE(0x28))
  const [entsize, count, strIndex] = [buf.readUInt16LE(0x3a), buf.readUInt16LE(0x3c), buf.readUInt16LE(0x3e)]
  const header = (i) => shoff + i * entsize
  const strtab = Number(buf.readBigUInt64LE(header(strIndex) + 0x18))
  return Array.from({ length: count }, (_, i) => cString(buf, strtab + buf.readUInt32LE(header(i))))
}

function machoSections(buf) {
  const LC_SEGMENT_64 = 0x19
  const names = []
  let at = 32 // mach_header_64
  for (let i = 0, n = buf.readUInt32LE(16); i < n; i++) {
    const [cmd, size] = [buf.readUInt32LE(at), buf.readUInt32LE(at + 4)]
    if (cmd === LC_SEGMENT_64) {
      names.push(cString(buf, at + 8, 16))
      for (let s = 0, ns = buf.readUInt32LE(at + 64); s < ns; s++) names.push(cString(buf, at + 72 + s * 80, 16))
    }
    at += size
  }
  return names
}

function peSections(buf) {
  const pe = buf.readUInt32LE(0x3c)
  if (buf.readUInt32LE(pe) !== 0x4550) throw new Error('not a PE binary')
  const [count, optionalSize] = [buf.readUInt16LE(pe + 6), buf.readUInt16LE(pe + 20)]
  const table = pe + 24 + optionalSize
  return Array.from({ length: count }, (_, i) => cString(buf, table + i * 40, 8))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = false
  for (const file of process.argv.slice(2)) {
    const found = debugSections(readFileSync(file))
    if (found.length) {
      failed = true
      console.error(`release: ${file} carries debug info (${found.join(', ')}): build it with --release`)
    } else {
      console.log(`${file}: no debug info`)
    }
  }
  process.exit(failed ? 1 : 0)
}
