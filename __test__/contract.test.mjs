// index.d.ts is the public contract: what the API really returns is held to it, field by field.
// The TypeScript compiler reads the declared return type of each call of `AgentMuxClient`; every
// value a call returns on the demo home and on a generated home is walked against it: every key
// returned is declared, every required key is present, and each value has its declared JS type
// (a Date where a Date is declared, a string, a number, a literal of a union...).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import ts from 'typescript'
import { createClient } from '../index.mjs'
import { demoHome, genHome, repoRoot, removeDir, withHome } from './helpers.mjs'

const require = createRequire(import.meta.url)

/** The declared types of index.d.ts, read by the compiler. */
function contract() {
  const file = join(repoRoot, 'index.d.ts')
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: [] })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source))
  const named = (name) => {
    const symbol = exported.find((s) => s.name === name)
    if (!symbol) throw new Error(`index.d.ts exports no ${name}`)
    return checker.getDeclaredTypeOfSymbol(symbol)
  }
  const member = (type, name) => {
    const p = type.getProperty(name)
    if (!p) throw new Error(`${checker.typeToString(type)} has no ${name}`)
    return checker.getTypeOfSymbol(p)
  }
  // What `client.<group>.<method>(...)` resolves to: the T of its Promise<T> (or T itself).
  const returned = (group, method) => {
    const fn = member(member(named('AgentMuxClient'), group), method)
    const out = checker.getReturnTypeOfSignature(fn.getCallSignatures()[0])
    return out.symbol?.name === 'Promise' ? checker.getTypeArguments(out)[0] : out
  }
  return { checker, named, returned }
}

/** Where `value` differs from `type`: a list of "path: what" (empty when it conforms). */
function mismatches(checker, value, type, path = '$', out = []) {
  const F = ts.TypeFlags
  const f = type.flags
  const say = (what) => out.push(`${path}: ${what} (declared ${checker.typeToString(type)})`)
  if (f & (F.Any | F.Unknown)) return out
  if (type.isUnion()) {
    // The member that fits; else the object member that comes closest, to say why.
    let best = null
    for (const m of type.types) {
      const found = mismatches(checker, value, m, path)
      if (found.length === 0) return out
      if (m.flags & F.Object && (best === null || found.length < best.length)) best = found
    }
    if (best && value !== null && typeof value === 'object' && !(value instanceof Date)) out.push(...best)
    else say(`${shown(value)} fits no member`)
    return out
  }
  if (f & F.Undefined) return value === undefined ? out : (say(`${shown(value)} is not undefined`), out)
  if (f & F.Null) return value === null ? out : (say(`${shown(value)} is not null`), out)
  if (f & F.StringLiteral) return value === type.value ? out : (say(`${shown(value)}`), out)
  if (f & F.NumberLiteral) return value === type.value ? out : (say(`${shown(value)}`), out)
  if (f & F.BooleanLiteral) {
    return value === (type.intrinsicName === 'true') ? out : (say(`${shown(value)}`), out)
  }
  if (f & F.String) return typeof value === 'string' ? out : (say(`${shown(value)} is not a string`), out)
  if (f & F.Number) return typeof value === 'number' ? out : (say(`${shown(value)} is not a number`), out)
  if (f & F.Boolean) return typeof value === 'boolean' ? out : (say(`${shown(value)} is not a boolean`), out)
  if (type.isIntersection()) {
    // `string & {}` (AgentName): the primitive decides. Object intersections have their
    // properties merged below.
    const primitive = type.types.find((t) => !(t.flags & F.Object))
    if (primitive) return mismatches(checker, value, primitive, path, out)
  }
  if (!(f & (F.Object | F.Intersection | F.NonPrimitive))) {
    say('a type this check does not know')
    return out
  }
  if (type.symbol?.name === 'Date') {
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) say(`${shown(value)} is not a valid Date`)
    return out
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    if (!Array.isArray(value)) return (say(`${shown(value)} is not an array`), out)
    const item = checker.getTypeArguments(type)[0]
    value.forEach((v, i) => mismatches(checker, v, item, `${path}[${i}]`, out))
    return out
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
    return (say(`${shown(value)} is not a plain object`), out)
  }
  if (f & F.NonPrimitive) return out
  const declared = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]))
  const index = checker.getIndexInfosOfType(type).find((i) => i.keyType.flags & F.String)
  for (const [name, p] of declared) {
    if (!Object.hasOwn(value, name)) {
      if (!(p.flags & ts.SymbolFlags.Optional)) say(`required key '${name}' is missing`)
      continue
    }
    if (value[name] === undefined) {
      say(`key '${name}' is present but undefined (JSON would leave it out)`)
      continue
    }
    // An optional key's type holds `undefined` too, which a present value never fits.
    mismatches(checker, value[name], checker.getTypeOfSymbol(p), `${path}.${name}`, out)
  }
  for (const key of Object.keys(value)) {
    if (declared.has(key)) continue
    if (index) mismatches(checker, value[key], index.type, `${path}[${JSON.stringify(key)}]`, out)
    else say(`key '${key}' is not declared in index.d.ts`)
  }
  return out
}

function shown(value) {
  if (value instanceof Date) return `Date(${value.getTime()})`
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`
}

/** Every call of the API on `home`, each result beside the group and method that declare it. */
async function everyCall(home) {
  return withHome(home, async () => {
    const client = createClient({ cacheDir: false })
    const { sessions, cost, messages, index } = client
    const calls = []
    const add = (group, method, label, value) => calls.push({ group, method, label, value })
    const all = await sessions.listAll({ limit: 1e6 })
    add('sessions', 'listAll', 'listAll', all)
    for (const agent of require('../index.js').BUILT_IN_AGENTS) {
      add('sessions', 'list', `list(${agent})`, await sessions.list(agent, { limit: 1e6 }))
    }
    // Every session whole, but not more than 60 (a generated home holds a few hundred).
    for (const s of all.slice(0, 60)) {
      add('sessions', 'get', `get(${s.unifiedId})`, await sessions.get(s.agent, s.sessionId))
      add('messages', 'window', `window(${s.unifiedId})`, await messages.window(s.agent, s.sessionId, { around: 'test', context: 1 }))
    }
    for (const text of ['kubernetes', 'test', 'borrow checker', 'zzqxjw']) {
      add('sessions', 'search', `search(${text})`, await sessions.search({ text, limit: 200 }))
    }
    add('sessions', 'totalCost', 'totalCost()', await sessions.totalCost())
    add('sessions', 'touched', 'touched(/home/dev/**)', await sessions.touched('/home/dev/**', { limit: 50 }))
    for (const s of all.slice(0, 10)) add('sessions', 'touches', `touches(${s.unifiedId})`, await sessions.touches(s.agent, s.sessionId))
    for (const groupBy of ['agent', 'model', 'day', 'tag', 'week', 'month', 'session', 'project']) {
      add('sessions', 'totalCost', `totalCost(${groupBy})`, await sessions.totalCost({ groupBy }))
    }
    add('sessions', 'listAll', 'listAll(subagents)', await sessions.listAll({ limit: 1e6, subagents: true }))
    add('sessions', 'recap', 'recap', await sessions.recap({ since: new Date(0) }))
    for (const report of ['daily', 'weekly', 'monthly', 'sessions']) {
      add('cost', report, `cost.${report}`, await cost[report]())
    }
    add('cost', 'blocks', 'cost.blocks', await cost.blocks({ tokenLimit: 'max' }))
    const [a, b] = all
    const side = (s) => ({ agent: s.agent, sessionId: s.sessionId })
    add('sessions', 'diff', 'diff(a, b)', await sessions.diff(side(a), side(b)))
    add('sessions', 'diff', 'diff(a, a)', await sessions.diff(side(a), side(a)))
    add('index', 'status', 'index.status', await index.status())
    add('keep', 'status', 'keep.status', await client.keep.status())
    return calls
  })
}

function conformance(home) {
  let calls
  let types
  beforeAll(async () => {
    types = contract()
    calls = await everyCall(home())
  })

  it('returns every key index.d.ts declares as required, and no key it does not declare', () => {
    const found = []
    for (const c of calls) {
      const type = types.returned(c.group, c.method)
      found.push(...mismatches(types.checker, c.value, type, c.label))
    }
    expect(found.slice(0, 20)).toEqual([])
    // The walk saw the fields that matter: Dates, optional costs, tool calls.
    const gets = calls.filter((c) => c.method === 'get').map((c) => c.value)
    expect(gets.length).toBeGreaterThan(5)
    expect(gets.some((s) => s.messages.some((m) => m.toolCalls?.length))).toBe(true)
    expect(calls.find((c) => c.label === 'cost.sessions').value.sessions.length).toBeGreaterThan(0)
  })
}

describe('index.d.ts holds what the API returns: the demo home', () => {
  conformance(() => demoHome)
})

describe('index.d.ts holds what the API returns: a generated home', () => {
  let home
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'amux-contract-'))
    genHome(home, ['--sessions', '40', '--seed', '11', '--scale', '1'])
  })
  afterAll(() => removeDir(home))
  conformance(() => home)
})

describe('the check itself', () => {
  const types = contract()
  const summary = types.named('SessionSummary')
  const valid = {
    agent: 'claude', sessionId: 's', unifiedId: 'claude:s', title: 't',
    createdAt: new Date(0), updatedAt: new Date(0), turnCount: 1, messageCount: 2, tags: [],
  }
  it('accepts a value that fits and names each way one does not', () => {
    expect(mismatches(types.checker, valid, summary)).toEqual([])
    expect(mismatches(types.checker, { ...valid, cost: { totalUsd: 1, inputTokens: 1, outputTokens: 1 } }, summary)).toEqual([])
    const bad = (v) => mismatches(types.checker, v, summary).join('\n')
    expect(bad({ ...valid, branch: 'main' })).toMatch(/\$: key 'branch' is not declared in index.d.ts/)
    const { title, ...untitled } = valid
    expect(bad(untitled)).toMatch(/required key 'title' is missing/)
    expect(bad({ ...valid, createdAt: '1970-01-01T00:00:00.000Z' })).toMatch(/\$\.createdAt: .* is not a valid Date/)
    expect(bad({ ...valid, turnCount: '1' })).toMatch(/\$\.turnCount: string "1" is not a number/)
    expect(bad({ ...valid, cost: { totalUsd: 1, inputTokens: 1 } })).toMatch(/\$\.cost: required key 'outputTokens' is missing/)
    expect(bad({ ...valid, model: undefined })).toMatch(/key 'model' is present but undefined/)
  })
})
