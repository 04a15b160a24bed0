// The licence text of every package an esbuild bundle holds code of, from its own LICENSE file:
// the page's build and the share file's renderer's build ship it beside their bundles.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/** The licences of the packages of `metafile`'s inputs (under `root`/node_modules), after `intro`. */
export function licenses(metafile, root, intro) {
  const packages = new Map()
  for (const input of Object.keys(metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (m && !packages.has(m[1])) packages.set(m[1], join(root, 'node_modules', m[1]))
  }
  const parts = []
  for (const [name, dir] of [...packages].sort()) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const file = existsSync(dir) ? readdirSync(dir).find((f) => /^(licen[sc]e|copying)(\.|$)/i.test(f)) : undefined
    const text = file ? readFileSync(join(dir, file), 'utf8').trim() : `License: ${pkg.license}`
    parts.push(`${name}@${pkg.version} (${pkg.license})\n\n${text}\n`)
  }
  return `${intro}\n\n${parts.join('\n' + '-'.repeat(72) + '\n\n')}`
}
