// The secret corpus: one fake secret of each kind an agent's session may hold, and a home whose
// sessions (Claude, Codex, Gemini, OpenCode, in their current on-disk formats) carry every one of
// them in first prompts, titles, tool inputs, tool outputs, thinking, assistant text and raw
// lines. Every surface's output test greps what it printed for every `SECRETS[i].value`.
//
// The secrets are assembled at run time from pieces and a seeded generator, so this file holds no
// string a secret scanner would flag (and the same secrets come out on every run).
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

// mulberry32: a small seeded generator, so the corpus is the same on every run.
function generator(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rand = generator(0x5ec7e75)
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const DIGITS = '0123456789'
const ALNUM = UPPER + LOWER + DIGITS
function pick(alphabet, n) {
  let s = ''
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)]
  return s
}
// Random text of a secret's alphabet that still holds every class (so no value is all digits).
function mixed(n, extra = '') {
  return pick(UPPER, 2) + pick(LOWER, 2) + pick(DIGITS, 2) + pick(ALNUM + extra, n - 6)
}
const b64url = (obj) => Buffer.from(JSON.stringify(obj)).toString('base64url')

const pem = (() => {
  const lines = Array.from({ length: 8 }, () => 'MII' + mixed(61, '+'))
  const label = ['PRIVATE', 'KEY'].join(' ')
  return { lines, block: [`-----BEGIN ${label}-----`, ...lines, `-----END ${label}-----`].join('\n') }
})()

/**
 * One fake secret of each kind. `value` is what must never appear in a redacted output (one line,
 * with no character JSON, HTML or markdown escape); `text` is how the secret is written into the
 * sessions (with the words a real one comes with); `needles` is every string an output must not
 * hold (the value, and for a private key each line of its body).
 */
export const SECRETS = [
  { kind: 'anthropic', value: ['sk', 'ant', 'api03', mixed(93, '_-') + 'AA'].join('-') },
  { kind: 'openai-legacy', value: 'sk-' + mixed(20) + ['T3Blbk', 'FJ'].join('') + mixed(20) },
  { kind: 'openai-project', value: ['sk', 'proj', mixed(74, '_-') + ['T3Blbk', 'FJ'].join('') + mixed(74, '_-')].join('-') },
  { kind: 'google-api-key', value: ['AI', 'za'].join('') + 'Sy' + mixed(33, '_-') },
  { kind: 'github-pat', value: ['gh', 'p_'].join('') + mixed(36) },
  { kind: 'github-fine-grained-pat', value: ['github', 'pat', mixed(22) + '_' + mixed(59)].join('_') },
  { kind: 'aws-access-key-id', value: ['AK', 'IA'].join('') + pick(UPPER + '234567', 16) },
  { kind: 'aws-secret-access-key', value: mixed(40, '+') },
  { kind: 'slack-bot-token', value: ['xo', 'xb'].join('') + '-' + pick(DIGITS, 11) + '-' + pick(DIGITS, 13) + '-' + mixed(24) },
  { kind: 'stripe-secret-key', value: ['sk', 'live', mixed(24)].join('_') },
  {
    kind: 'jwt',
    value: [b64url({ alg: 'HS256', typ: 'JWT' }), b64url({ sub: 'u' + pick(DIGITS, 8), name: 'Dev', iat: 1764000000 }), mixed(43, '_-')].join('.'),
  },
  { kind: 'private-key', value: pem.lines[0] },
  { kind: 'password-assignment', value: mixed(24, '!#%^*') },
  { kind: 'secret-assignment', value: mixed(32) },
]

const textOf = {
  anthropic: (v) => `ANTHROPIC_API_KEY=${v}`,
  'openai-legacy': (v) => `OPENAI_API_KEY=${v}`,
  'openai-project': (v) => `export OPENAI_API_KEY="${v}"`,
  'google-api-key': (v) => `GEMINI_API_KEY=${v}`,
  'github-pat': (v) => `git remote set-url origin https://${v}@github.com/acme/shop.git`,
  'github-fine-grained-pat': (v) => `GH_TOKEN=${v}`,
  'aws-access-key-id': (v) => `aws_access_key_id = ${v}`,
  'aws-secret-access-key': (v) => `aws_secret_access_key = ${v}`,
  'slack-bot-token': (v) => `SLACK_BOT_TOKEN=${v}`,
  'stripe-secret-key': (v) => `stripe.api_key = '${v}'`,
  jwt: (v) => `curl -H "Authorization: Bearer ${v}" https://api.example.com/me`,
  'private-key': () => pem.block,
  'password-assignment': (v) => `DB_PASSWORD=${v}`,
  'secret-assignment': (v) => `client_secret: ${v}`,
}
for (const s of SECRETS) {
  s.text = textOf[s.kind](s.value)
  s.needles = s.kind === 'private-key' ? pem.lines : [s.value]
}

/** Every secret as it is written: one per line, as a `.env` file or a pasted block holds them. */
export const SECRET_BLOCK = SECRETS.map((s) => s.text).join('\n')

/** Every needle of every secret that occurs in `text` (an empty array: nothing leaked). */
export function leaks(text) {
  const out = []
  for (const s of SECRETS) for (const n of s.needles) if (text.includes(n)) out.push(`${s.kind}: ${n.slice(0, 12)}…`)
  return out
}

const byKind = Object.fromEntries(SECRETS.map((s) => [s.kind, s.value]))
// A title shows the short keys people paste first (the leak the issue measured).
const TITLE = `Rotate ${byKind['aws-access-key-id']} and ${byKind['github-pat']} after the leak`
const PROMPT = `The deploy fails, here is my .env:\n${SECRET_BLOCK}\nWhy does the login still break?`
const THINKING = `The user pasted credentials. The key ${byKind.anthropic} and ${byKind['stripe-secret-key']} are live; all of them:\n${SECRET_BLOCK}`
const ANSWER = `Do not paste keys. Rotate ${byKind['openai-project']} and ${byKind['slack-bot-token']} now; the rest:\n${SECRET_BLOCK}`
const COMMAND = `cat .env && curl -H "Authorization: Bearer ${byKind.jwt}" https://api.example.com/me`
const OUTPUT = `${SECRET_BLOCK}\nexit 0`

/** The ids `makeSecretHome` writes, per agent (each session holds every secret). */
export const SECRET_SESSIONS = {
  claude: '7d1f0c7e-5b8a-4c1e-9a51-3f2e8c4d9b10',
  codex: '0199a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b',
  gemini: 'c4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f70',
  opencode: 'ses_7fffffffffffABCDEFGHIJKLMN',
}
const CWD = '/home/dev/src/shop'
const T0 = Date.parse('2026-11-20T09:00:00.000Z')
const iso = (k) => new Date(T0 + k * 1000).toISOString()
const jsonl = (records) => records.map((r) => JSON.stringify(r)).join('\n') + '\n'
function write(path, text) {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
  const t = new Date(T0 + 60_000)
  utimesSync(path, t, t)
}

function writeClaude(home) {
  const sid = SECRET_SESSIONS.claude
  const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd: CWD, sessionId: sid, version: '2.1.197', gitBranch: 'main' }
  const usage = { input_tokens: 120, cache_creation_input_tokens: 0, cache_read_input_tokens: 900, output_tokens: 80, service_tier: 'standard' }
  const lines = []
  let parent = null
  const entry = (type, k, rest) => {
    const uuid = `00000000-0000-4000-8000-${String(lines.length + 1).padStart(12, '0')}`
    lines.push({ parentUuid: parent, ...base, type, uuid, timestamp: iso(k), ...rest })
    parent = uuid
  }
  const assistant = (k, content) =>
    entry('assistant', k, {
      requestId: 'req_0000000000000000000000a1',
      message: { model: 'claude-sonnet-4-5-20250929', id: 'msg_0000000000000000000000a1', type: 'message', role: 'assistant', content, stop_reason: 'tool_use', stop_sequence: null, usage },
    })
  entry('user', 0, { message: { role: 'user', content: PROMPT }, promptId: '00000000-0000-4000-8000-0000000000ff', permissionMode: 'default' })
  assistant(2, [{ type: 'thinking', thinking: THINKING, signature: 'sig' }])
  assistant(2, [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: COMMAND, description: 'Read the env file', env: { KEY: byKind['google-api-key'] } } }])
  entry('user', 4, {
    message: { role: 'user', content: [{ tool_use_id: 'toolu_01', type: 'tool_result', content: OUTPUT, is_error: false }] },
    toolUseResult: { stdout: OUTPUT, stderr: '', interrupted: false, isImage: false },
  })
  assistant(6, [{ type: 'text', text: ANSWER }])
  lines.push({ type: 'ai-title', sessionId: sid, aiTitle: TITLE })
  lines.push({ type: 'last-prompt', lastPrompt: PROMPT, leafUuid: parent, sessionId: sid })
  write(join(home, '.claude', 'projects', '-home-dev-src-shop', `${sid}.jsonl`), jsonl(lines))
}

function writeCodex(home) {
  const sid = SECRET_SESSIONS.codex
  const lines = []
  const line = (k, type, payload) => lines.push({ timestamp: iso(k), ordinal: lines.length, type, payload })
  line(0, 'session_meta', { session_id: sid, id: sid, timestamp: iso(0), cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.169.0', source: 'cli', thread_source: 'user', model_provider: 'openai', base_instructions: { text: 'You are Codex, a coding agent.' } })
  line(0, 'turn_context', { turn_id: '00000000-0000-4000-8000-000000000001', cwd: CWD, model: 'gpt-5-codex', effort: 'medium', summary: 'auto', approval_policy: 'on-request' })
  // Codex titles a session by its first prompt: the title holds the secrets it starts with.
  const prompt = `${TITLE}. ${PROMPT}`
  line(0, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] })
  line(0, 'event_msg', { type: 'user_message', message: prompt, images: [] })
  line(1, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: THINKING }], content: null, encrypted_content: 'gAAAA' })
  line(2, 'response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: COMMAND }), call_id: 'call_01' })
  line(3, 'response_item', { type: 'function_call_output', call_id: 'call_01', output: 'Process exited with code 0\nOutput:\n' + OUTPUT })
  line(4, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ANSWER }] })
  const usage = { input_tokens: 1000, cached_input_tokens: 800, cache_write_input_tokens: 0, output_tokens: 90, reasoning_output_tokens: 10, total_tokens: 1090 }
  line(4, 'event_msg', { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 258400 }, rate_limits: null })
  line(4, 'event_msg', { type: 'task_complete', last_agent_message: ANSWER })
  write(join(home, '.codex', 'sessions', '2026', '11', '20', `rollout-2026-11-20T09-00-00-${sid}.jsonl`), jsonl(lines))
}

function writeGemini(home) {
  const sid = SECRET_SESSIONS.gemini
  const tokens = { input: 1000, output: 90, cached: 800, thoughts: 10, tool: 0, total: 1100 }
  const first = { id: 'g0', timestamp: iso(2), type: 'gemini', content: '', thoughts: [{ subject: 'Plan', description: THINKING, timestamp: iso(1) }], tokens, model: 'gemini-2.5-pro' }
  const call = {
    id: 'call_01', name: 'run_shell_command', args: { command: COMMAND },
    result: [{ functionResponse: { id: 'call_01', name: 'run_shell_command', response: { output: OUTPUT } } }],
    status: 'success', timestamp: iso(3), displayName: 'Shell',
  }
  const lines = [
    { sessionId: sid, projectHash: '0'.repeat(64), startTime: iso(0), lastUpdated: iso(0), kind: 'main' },
    { id: 'u0', timestamp: iso(0), type: 'user', content: [{ text: PROMPT }] },
    first,
    { ...first, toolCalls: [call] },
    { ...first, content: ANSWER, timestamp: iso(4), toolCalls: [call] },
    { $set: { lastUpdated: iso(4) } },
    { $set: { summary: TITLE } },
  ]
  write(join(home, '.gemini', 'tmp', 'shop', 'chats', `session-2026-11-20T09-00-${sid.slice(0, 8)}.jsonl`), jsonl(lines))
  write(join(home, '.gemini', 'tmp', 'shop', '.project_root'), CWD)
}

// OpenCode keeps its sessions in SQLite: Python's sqlite3 writes it (a prerequisite of the test
// suite), from the schema the generator uses.
const OPENCODE_WRITER = `
import json, sqlite3, sys
d = json.load(sys.stdin)
conn = sqlite3.connect(d["path"])
conn.executescript(open(d["schema"], encoding="utf-8").read())
conn.execute("INSERT INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) VALUES ('global', '/', NULL, NULL, ?, ?, '[]')", (d["t0"], d["t0"]))
for m in d["messages"]:
    conn.execute("INSERT INTO message VALUES (?,?,?,?,?)", (m["id"], d["sid"], m["t"], m["t"], json.dumps(m["data"])))
    for k, p in enumerate(m["parts"]):
        conn.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", ("%s_p%02d" % (m["id"].replace("msg_", "prt_"), k), m["id"], d["sid"], m["t"], m["t"], json.dumps(p)))
conn.execute("INSERT INTO session (id, project_id, slug, directory, title, version, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, model, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
             (d["sid"], "global", "slug-secret", d["cwd"], d["title"], "1.18.33", 0.01, 1000, 90, 10, 800, 0, json.dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"}), d["t0"], d["t0"] + 60000))
conn.commit()
conn.close()
`

function writeOpenCode(home, python) {
  const dir = join(home, '.local', 'share', 'opencode')
  mkdirSync(dir, { recursive: true })
  const t = (k) => T0 + k * 1000
  const tokens = { total: 1100, input: 1000, output: 90, reasoning: 10, cache: { read: 800, write: 0 } }
  const assistant = { role: 'assistant', parentID: 'msg_000000000001AAAAAAAAAAAAAA', mode: 'build', agent: 'build', path: { cwd: CWD, root: CWD }, cost: 0.01, tokens, modelID: 'claude-sonnet-4-5', providerID: 'anthropic', time: { created: t(1), completed: t(4) }, finish: 'stop' }
  const messages = [
    { id: 'msg_000000000001AAAAAAAAAAAAAA', t: t(0), data: { role: 'user', time: { created: t(0) }, agent: 'build', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' } }, parts: [{ type: 'text', text: PROMPT }] },
    {
      id: 'msg_000000000002AAAAAAAAAAAAAA', t: t(1), data: assistant,
      parts: [
        { type: 'step-start', snapshot: 'f12e27e9' },
        { type: 'reasoning', text: THINKING, time: { start: t(1), end: t(1) } },
        { type: 'tool', tool: 'bash', callID: 'call_01', state: { status: 'completed', input: { command: COMMAND }, output: OUTPUT, title: COMMAND, metadata: { exit: 0 }, time: { start: t(2), end: t(3) } } },
        { type: 'text', text: ANSWER },
        { type: 'step-finish', reason: 'stop', snapshot: 'f12e27e9', tokens, cost: 0.01 },
      ],
    },
  ]
  const input = JSON.stringify({ path: join(dir, 'opencode.db'), schema: join(repoRoot, 'scripts', 'schema', 'opencode.sql'), sid: SECRET_SESSIONS.opencode, cwd: CWD, title: TITLE, t0: T0, messages })
  execFileSync(python, ['-c', OPENCODE_WRITER], { input })
}

/**
 * Writes into `dir` (a home) one session per agent of `SECRET_SESSIONS`, each holding every
 * secret of `SECRETS`. `python` is the interpreter that writes OpenCode's SQLite store.
 * Returns `SECRET_SESSIONS`.
 */
export function makeSecretHome(dir, python = 'python3') {
  writeClaude(dir)
  writeCodex(dir)
  writeGemini(dir)
  writeOpenCode(dir, python)
  return SECRET_SESSIONS
}

// `node __test__/secrets/corpus.mjs DIR` writes the home (to look at it, or to bench on it).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: node __test__/secrets/corpus.mjs DIR')
  makeSecretHome(dir)
  console.log(readFileSync(join(dir, '.claude', 'projects', '-home-dev-src-shop', `${SECRET_SESSIONS.claude}.jsonl`), 'utf8').length, 'bytes of Claude session written to', dir)
}
