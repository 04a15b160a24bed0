// Rewrites binding.js, the loader `napi build --platform` generates, for the version now in
// package.json, without compiling. The loader names the version of the platform packages it
// expects, so `npm version` runs this (package.json's `version` script) and the tagged commit
// carries a loader of its own version. The release build job's `git diff --exit-code -- binding.js`
// proves the result is byte for byte what `napi build` writes.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readNapiConfig, writeJsBinding } from '@napi-rs/cli'

const root = fileURLToPath(new URL('../..', import.meta.url))
const loader = join(root, 'binding.js')

// The exports are the addon's, known to `napi build` from the compiled type definitions; the
// committed loader lists them last, one `module.exports.<name> = nativeBinding.<name>` each.
const idents = [...readFileSync(loader, 'utf8').matchAll(/^module\.exports\.(\w+) = nativeBinding\.\1$/gm)].map((m) => m[1])
if (idents.length === 0) throw new Error(`${loader} lists no exports: run \`npm run build\` once to regenerate it`)

const { binaryName, packageName, packageJson } = await readNapiConfig(join(root, 'package.json'))
await writeJsBinding({
  platform: true,
  idents,
  jsBinding: 'binding.js',
  binaryName,
  packageName,
  version: packageJson.version,
  outputDir: root,
})
