// Do the root package, the eight npm/<platform> packages and the generated loader (binding.js)
// name one version, and is it the version of the tag being released?
//
//   node scripts/release/check-versions.mjs [<tag>]
//
// With a tag (the release workflow passes the pushed one, `v1.2.3`), the tag must be `v` plus
// that version. Under GitHub Actions, package.json's repository must also be the repository the
// workflow runs in: npm refuses provenance for a package that names another one.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** What disagrees in the package at `root` (none: []). */
export function versionProblems(root, tag) {
  const read = (path) => readFileSync(join(root, path), 'utf8')
  const pkg = JSON.parse(read('package.json'))
  const problems = []
  for (const dir of readdirSync(join(root, 'npm'))) {
    const { name, version } = JSON.parse(read(join('npm', dir, 'package.json')))
    if (version !== pkg.version) problems.push(`${name} (npm/${dir}) is at ${version}, the root at ${pkg.version}`)
  }
  const expected = new Set([...read('binding.js').matchAll(/bindingPackageVersion !== '([^']*)'/g)].map((m) => m[1]))
  if (expected.size !== 1 || !expected.has(pkg.version)) {
    problems.push(`binding.js expects platform packages at ${[...expected].join(', ') || 'no version'}, the root is at ${pkg.version} (npm version runs scripts/release/write-loader.mjs)`)
  }
  if (tag !== undefined && tag !== `v${pkg.version}`) problems.push(`tag ${tag} is not v${pkg.version}, the version in package.json`)
  const repo = process.env.GITHUB_ACTIONS && process.env.GITHUB_REPOSITORY
  if (repo && !new RegExp(`github\\.com[/:]${repo}(\\.git)?$`, 'i').test(pkg.repository?.url ?? '')) {
    problems.push(`package.json's repository (${pkg.repository?.url}) is not ${repo}: npm would refuse the provenance`)
  }
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = versionProblems(fileURLToPath(new URL('../..', import.meta.url)), process.argv[2])
  for (const p of problems) console.error(`release: ${p}`)
  process.exit(problems.length ? 1 : 0)
}
