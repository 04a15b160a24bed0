// What npm would publish: the root package carries no binary (the platform packages do, and a
// local `npm run build:debug` leaves an ~85 MB debug one in the checkout), and, with --platforms
// (after `napi artifacts`), each npm/<platform> package carries exactly its own binary, built
// without debug info. package.json runs it before packing (prepack) and, with --platforms,
// before `napi pre-publish` publishes anything (prepublishOnly).
//
//   node scripts/release/check-pack.mjs [--platforms]
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { debugSections } from './debug-info.mjs'

/** For each package directory, the binaries `npm pack` would put in its tarball (one npm run). */
async function packedBinaries(dirs) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const args = ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error', ...dirs]
  const { stdout } = await promisify(execFile)(npm, args, { shell: process.platform === 'win32' })
  return JSON.parse(stdout).map((pack) => pack.files.map((f) => f.path).filter((f) => f.endsWith('.node')))
}

/** What is wrong with the packages at `root` (none: []). */
export async function packProblems(root, { platforms = false, debugInfo = platforms } = {}) {
  const problems = []
  const dirs = platforms ? readdirSync(join(root, 'npm')) : []
  const [inRoot, ...inPlatforms] = await packedBinaries([root, ...dirs.map((dir) => join(root, 'npm', dir))])
  if (inRoot.length) problems.push(`the root package would ship ${inRoot.join(', ')}: package.json's files must not list binaries`)
  const { binaryName } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).napi
  for (const [i, dir] of dirs.entries()) {
    const own = `${binaryName}.${dir}.node`
    const shipped = inPlatforms[i]
    if (shipped.length !== 1 || shipped[0] !== own) {
      problems.push(`npm/${dir} would ship [${shipped.join(', ')}], not exactly ${own} (run napi artifacts)`)
    } else if (debugInfo) {
      const debug = debugSections(readFileSync(join(root, 'npm', dir, own)))
      if (debug.length) problems.push(`npm/${dir}/${own} carries debug info (${debug.join(', ')}): not a release build`)
    }
  }
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const problems = await packProblems(root, { platforms: process.argv.includes('--platforms') })
  for (const p of problems) console.error(`release: ${p}`)
  process.exit(problems.length ? 1 : 0)
}
