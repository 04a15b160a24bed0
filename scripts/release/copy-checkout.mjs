// A throwaway copy of a checkout: its files as they are now (tracked and new, not ignored, so no
// build output), with node_modules linked in. Used where a test or the release rehearsal must run
// npm's lifecycle scripts, which write into the package (ui/dist), without touching the checkout.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Copies the checkout at `source` into `dir` (which may exist), linking its node_modules. */
export function copyCheckout(source, dir) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: source, encoding: 'utf8' })
  for (const file of files.split('\0').filter(Boolean)) {
    if (!existsSync(join(source, file))) continue // deleted in the working tree
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    cpSync(join(source, file), join(dir, file))
  }
  symlinkSync(join(source, 'node_modules'), join(dir, 'node_modules'), 'junction')
}
