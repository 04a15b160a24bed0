// `npm run build:render`: the share file's renderer (share.js, with markdown-it, lowlight and the
// transcript's stylesheet, minified) bundled by esbuild into render/dist/share.cjs, which index.js
// requires for `export(…, 'html')`: the library ships the page's own markdown and highlighting
// without depending on them at run time. The licences of the libraries bundled go beside it.
import { build } from 'esbuild'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { licenses } from './licenses.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const dist = join(here, 'dist')
const started = Date.now()

const style = await build({ entryPoints: [join(here, 'share.css')], bundle: true, minify: true, write: false, logLevel: 'warning' })
const css = style.outputFiles[0].text.trim()

rmSync(dist, { recursive: true, force: true })
mkdirSync(dist, { recursive: true })
const result = await build({
  entryPoints: [join(here, 'share.js')],
  outfile: join(dist, 'share.cjs'),
  bundle: true,
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
  // The stylesheet, minified above, as the text share.js imports.
  plugins: [{ name: 'css-text', setup: (b) => b.onLoad({ filter: /\.css$/ }, () => ({ contents: css, loader: 'text' })) }],
})
writeFileSync(join(dist, 'LICENSES.txt'), licenses(result.metafile, root, "amux's share file renderer (render/dist/share.cjs) bundles these libraries:"))
const size = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0)
console.error(`render: render/dist/share.cjs built in ${Date.now() - started} ms, ${size} B`)
