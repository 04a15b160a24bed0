// `npm run build:ui`: the page (ui/page) bundled by esbuild into ui/dist, which the npm package
// ships and `amux ui` serves. File names carry a hash of their content (served as immutable);
// index.html names them. The licences of the libraries bundled go to ui/dist/assets/LICENSES.txt.
// Prints each file's size, raw and gzipped, on stderr: npm runs this as prepack, and `npm pack
// --json` must print nothing but its JSON on stdout. Fails past the page's budget.
import { build } from 'esbuild'
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createHash } from 'node:crypto'
import { licenses } from '../render/licenses.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const page = join(here, 'page')
const dist = join(here, 'dist')
const assets = join(dist, 'assets')
// The page's assets, gzipped, may not weigh more than this (the budget).
export const BUDGET_GZIP = 500_000

const started = Date.now()
rmSync(dist, { recursive: true, force: true })
mkdirSync(assets, { recursive: true })

const result = await build({
  entryPoints: { app: join(page, 'main.jsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome111', 'firefox113', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: assets,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
})

const hashed = (text, name, ext) => `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase()}.${ext}`
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p))
const favicon = readFileSync(join(page, 'favicon.svg'))
const faviconName = hashed(favicon, 'favicon', 'svg')
writeFileSync(join(assets, faviconName), favicon)
writeFileSync(join(assets, 'LICENSES.txt'), licenses(result.metafile, root, 'The page of amux ui bundles these libraries:'))
const html = readFileSync(join(page, 'index.html'), 'utf8')
  .replace('{{js}}', outputs.find((f) => f.endsWith('.js')))
  .replace('{{css}}', outputs.find((f) => f.endsWith('.css')))
  .replace('{{favicon}}', faviconName)
writeFileSync(join(dist, 'index.html'), html)

// What the browser downloads, gzipped as the server sends it.
let total = 0
for (const name of ['index.html', ...readdirSync(assets).map((n) => `assets/${n}`)]) {
  const body = readFileSync(join(dist, name))
  const gz = gzipSync(body, { level: 9 }).length
  if (!name.endsWith('.txt')) total += gz
  console.error(`  ui/dist/${name.padEnd(32)} ${String(body.length).padStart(8)} B  ${String(gz).padStart(7)} B gzipped`)
}
console.error(`ui: page built in ${Date.now() - started} ms, ${total} B gzipped (budget ${BUDGET_GZIP} B)`)
if (total > BUDGET_GZIP) {
  console.error(`ui: the page's assets weigh ${total} B gzipped, over the budget of ${BUDGET_GZIP} B`)
  process.exit(1)
}
