// Run a command with its stdout (and stdin) on a pseudo-terminal of a given size, as a person at a
// terminal would, through python3's pty module (node has no pty of its own). stderr stays a pipe,
// so it is read apart. Returns { status, stdout, stderr } with the terminal's \r\n turned back to \n.
import { spawnSync } from 'node:child_process'
import { python } from './helpers.mjs'

const RUNNER = `
import os, sys, struct, fcntl, termios, subprocess
cols, rows = int(sys.argv[1]), int(sys.argv[2])
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
child = subprocess.Popen(sys.argv[3:], stdin=slave, stdout=slave, stderr=subprocess.PIPE, close_fds=True)
os.close(slave)
out = b''
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
err = child.stderr.read()
child.wait()
sys.stdout.buffer.write(out)
sys.stderr.buffer.write(err)
sys.exit(child.returncode)
`

/** null when python3 is missing: callers skip. */
export const ptyAvailable = python !== null

export function inTerminal(command, args, { cols = 100, rows = 40, env = process.env, cwd } = {}) {
  const run = spawnSync(python, ['-c', RUNNER, String(cols), String(rows), command, ...args], {
    encoding: 'utf8',
    env,
    cwd,
    timeout: 60_000,
  })
  return { status: run.status, stdout: run.stdout.replace(/\r\n/g, '\n'), stderr: run.stderr }
}
