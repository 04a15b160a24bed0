// ripgrep as the benches run it: `rg -uuu -i -F -l <args> <dirs>`, one whole process. A run that
// did not search (rg missing, a bad flag) throws: timing a failed spawn reads as a fast rg.
import { spawnSync } from 'node:child_process'

/** Runs `[prefix...] rg -uuu -i -F -l ...args`; the spawn's result, once rg exited 0 or 1 (found, none found). */
export function rgList(args, { prefix = [], stdio = 'ignore' } = {}) {
  const [cmd, ...rest] = [...prefix, 'rg', '-uuu', '-i', '-F', '-l', ...args]
  const run = spawned(cmd, spawnSync(cmd, rest, { stdio, maxBuffer: 1 << 30 }))
  if (run.status !== 0 && run.status !== 1) throw new Error(`rg exited ${run.status}: ${run.stderr?.toString().trim() ?? ''}`)
  return run
}

/** The first line of `rg --version`: rg's speed moves between versions, so the benches print it. */
export function rgVersion() {
  return spawned('rg', spawnSync('rg', ['--version'], { encoding: 'utf8' })).stdout.split('\n')[0]
}

/** The spawn's result, or the reason it did not start. */
function spawned(cmd, run) {
  if (run.error) throw new Error(`${cmd}: ${run.error.message} (is ripgrep installed? apt-get install ripgrep)`)
  return run
}
