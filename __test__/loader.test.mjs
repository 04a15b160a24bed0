// When no binary loads, require('@a5c-ai/agent-mux') says which system this is (platform, arch,
// libc, Node) and which targets have binaries, instead of the generated loader's advice about npm.
// Unsupported systems are simulated: a preload script sets process.platform and process.arch
// before a copy of the package (index.js, binding.js, package.json; no binary beside it) loads.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { hostPlatform, removeDir, repoRoot } from './helpers.mjs'

const SUPPORTED = ['linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64',
  'win32-x64-msvc', 'win32-arm64-msvc']

let dir
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'amux-loader-'))
  for (const f of ['index.js', 'binding.js', 'package.json']) copyFileSync(join(repoRoot, f), join(dir, f))
  writeFileSync(join(dir, 'simulate.cjs'), `
    const [platform, arch] = (process.env.SIMULATE || '').split('/')
    if (platform) Object.defineProperty(process, 'platform', { value: platform })
    if (arch) Object.defineProperty(process, 'arch', { value: arch })
  `)
})
afterAll(() => removeDir(dir))

/** The error require('./index.js') throws in the copy, on the simulated system. */
function loadError(simulate) {
  const env = { ...process.env, SIMULATE: simulate }
  for (const name of ['NAPI_RS_NATIVE_LIBRARY_PATH', 'NAPI_RS_FORCE_WASI', 'NAPI_RS_WASI_FLAVOR', 'NODE_PATH']) delete env[name]
  const script = `try { require('./index.js'); console.log('{}') } catch (e) { console.log(JSON.stringify({ message: e.message, cause: String(e.cause) })) }`
  const run = spawnSync(process.execPath, ['-r', './simulate.cjs', '-e', script], { cwd: dir, env, encoding: 'utf8' })
  expect(run.status).toBe(0)
  return JSON.parse(run.stdout)
}

describe('the loader on a system without a binary', () => {
  it.each([
    ['freebsd/x64', 'freebsd-x64', 'platform freebsd, arch x64, Node'],
    ['win32/ia32', 'win32-ia32-msvc', 'platform win32, arch ia32, Node'],
    ['linux/arm', 'linux-arm-', 'platform linux, arch arm, libc '],
  ])('%s: names the system, the Node version and every supported target', (simulate, name, system) => {
    const { message, cause } = loadError(simulate)
    expect(message).toContain(`@a5c-ai/agent-mux has no binary for ${name}`)
    expect(message).toContain(system)
    expect(message).toContain(process.version)
    expect(message).toContain(`Prebuilt binaries: ${SUPPORTED.join(', ')}; Node >= 20.`)
    expect(message).not.toContain('npm has a bug')
    // the generated loader's own error stays reachable as the cause
    expect(cause).toContain('Cannot find native binding')
  })

  it('on a supported system whose platform package is missing, names that package', () => {
    const here = hostPlatform()
    expect(SUPPORTED).toContain(here)
    const { message } = loadError('')
    expect(message).toContain(`the binary for ${here} (platform ${process.platform}, arch ${process.arch}`)
    expect(message).toContain(`optional package @a5c-ai/agent-mux-${here}, missing or broken here`)
  })
})
