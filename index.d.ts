// Public types of @a5c-ai/agent-mux: the names and shapes of session-manager-spec.md and
// core-types.md, exactly. Additions beyond the spec (optional fields, `listAll`, `index`, `cost`,
// `messages`) are marked "Beyond the spec".

export type BuiltInAgentName =
  | 'claude'
  | 'codex'
  | 'gemini'
  | 'copilot'
  | 'cursor'
  | 'opencode'
  | 'pi'
  | 'omp'
  | 'openclaw'
  | 'hermes'

export type AgentName = BuiltInAgentName | (string & {})

export interface CostRecord {
  /** Total cost in USD. */
  totalUsd: number
  /** Input tokens consumed (not counting cached input). */
  inputTokens: number
  /** Output tokens generated (not counting reasoning). */
  outputTokens: number
  /** Thinking/reasoning tokens (if applicable). */
  thinkingTokens?: number
  /** Cached input tokens read (if applicable). */
  cachedTokens?: number
  /** Beyond the spec: tokens written to the prompt cache, where the agent reports them. */
  cacheWriteTokens?: number
}

export interface SessionSummary {
  agent: AgentName
  sessionId: string
  unifiedId: string
  title: string
  createdAt: Date
  updatedAt: Date
  turnCount: number
  messageCount: number
  model?: string
  cost?: CostRecord
  tags: string[]
  cwd?: string
  forkedFrom?: string
  /** Beyond the spec: the git branch the session ran on (the last one recorded), where the agent records it. */
  gitBranch?: string
  /**
   * Beyond the spec: the session's project, the main working directory of the git repository its
   * `cwd` is in (worktrees and subdirectories are one project), else its `cwd`; as it was when
   * the session was indexed, so a session whose directory is gone keeps it.
   */
  project?: string
  /** Beyond the spec: the session that started this one as a sub-agent (its unified id). */
  parentId?: string
  /**
   * Beyond the spec: how many sub-agents this session started whose transcripts are read into it
   * (Claude Code's) or, in a list, whose sessions are folded into its row (their cost added).
   */
  children?: number
  relevanceScore?: number
  /** Beyond the spec (search only): the best matching passage, hits marked `>>>hit<<<`. */
  snippet?: string
  /** Beyond the spec (search only): how many matches the session holds. */
  matchCount?: number
  /** Beyond the spec: a kept session whose source is gone, answered from amux's own copy (`keep`). */
  archived?: true
  /** Beyond the spec, from a team database only (`ClientOptions.source`): the machine that synced the session. */
  machine?: string
  /** Beyond the spec, from a team database only: the OS user that synced it. */
  user?: string
}

export interface Session {
  agent: AgentName
  sessionId: string
  unifiedId: string
  title: string
  createdAt: Date
  updatedAt: Date
  turnCount: number
  model?: string
  cost?: CostRecord
  tags: string[]
  cwd?: string
  forkedFrom?: string
  /** Beyond the spec: the git branch the session ran on (the last one recorded), where the agent records it. */
  gitBranch?: string
  /** Beyond the spec: the session that started this one as a sub-agent, as on the summary. */
  parentId?: string
  /** Beyond the spec: how many sub-agents' transcripts are read into this session. */
  children?: number
  messages: SessionMessage[]
  raw?: unknown
  /** Beyond the spec: `messages.length`, as on the summary. */
  messageCount?: number
  /** Beyond the spec, from a team database only (`ClientOptions.source`): the machine that synced the session. */
  machine?: string
  /** Beyond the spec, from a team database only: the OS user that synced it. */
  user?: string
}

export interface SessionMessage {
  role: 'user' | 'assistant' | 'system' | 'tool'
  content: string
  timestamp?: Date
  toolCalls?: SessionToolCall[]
  toolResult?: {
    toolCallId: string
    toolName: string
    output: unknown
  }
  tokenUsage?: {
    inputTokens: number
    outputTokens: number
    thinkingTokens?: number
    cachedTokens?: number
  }
  cost?: CostRecord
  thinking?: string
  model?: string
  /** Beyond the spec: the subagent whose transcript this message came from. */
  subagent?: string
}

export interface SessionToolCall {
  toolCallId: string
  toolName: string
  input: unknown
  output?: unknown
  durationMs?: number
}

export interface SessionQuery {
  text: string
  agent?: AgentName
  since?: Date
  until?: Date
  model?: string
  tags?: string[]
  limit?: number
  sort?: 'relevance' | 'date' | 'cost'
  /** Beyond the spec: only sessions started in this directory, as `SessionListOptions.cwd`. */
  cwd?: string
  /** Beyond the spec: only sessions that ran on this git branch, as `SessionListOptions.branch`. */
  branch?: string
  /** Beyond the spec: only sessions of this project, as `SessionListOptions.project`. */
  project?: string
  /**
   * Beyond the spec: redact secrets in the results' titles and snippets (default: the client's
   * `redact`). A query still finds a session by a secret's own text or the words around it; the
   * snippet then shows the tag.
   */
  redact?: boolean
  /** Beyond the spec: kept sessions whose source is gone, as `SessionListOptions.archived`. */
  archived?: 'include' | 'only' | 'exclude'
  /** Beyond the spec, a team database only (`ClientOptions.source`): sessions synced from this machine (its `amux sync --machine` name). */
  machine?: string
  /** Beyond the spec, a team database only: sessions synced by this OS user (`amux sync --user`). */
  user?: string
}

export interface SessionListOptions {
  since?: Date
  until?: Date
  model?: string
  tags?: string[]
  limit?: number
  sort?: 'date' | 'cost' | 'turns'
  sortDirection?: 'asc' | 'desc'
  cwd?: string
  /** Beyond the spec: only sessions that ran on this git branch (`SessionSummary.gitBranch`), exactly. */
  branch?: string
  /**
   * Beyond the spec: only sessions of this project (`SessionSummary.project`): an absolute
   * directory (taken to its repository's project) or a project directory's name.
   */
  project?: string
  /**
   * Beyond the spec: every session on its own row. By default a sub-agent's session is folded
   * into the session that started it (its count in `children`, its cost added).
   */
  subagents?: boolean
  /**
   * Beyond the spec: kept sessions whose source is gone (`SessionSummary.archived`): with the
   * others ('include', the default), only them, or none.
   */
  archived?: 'include' | 'only' | 'exclude'
  /**
   * Beyond the spec: redact secrets (API keys, tokens, private keys, passwords: gitleaks' rules
   * and ours) in what this call returns, each as `[REDACTED:<rule>:<4 hex>]`. Default: the
   * client's `redact`.
   */
  redact?: boolean
  /** Beyond the spec, a team database only (`ClientOptions.source`): sessions synced from this machine (its `amux sync --machine` name). */
  machine?: string
  /** Beyond the spec, a team database only: sessions synced by this OS user (`amux sync --user`). */
  user?: string
}

/** Beyond the spec: the options of `get`, `export` and `diff`. */
export interface ReadOptions {
  /**
   * Beyond the spec: redact secrets (API keys, tokens, private keys, passwords: gitleaks' rules
   * and ours) in what this call returns, each as `[REDACTED:<rule>:<4 hex>]`. Default: the
   * client's `redact`.
   */
  redact?: boolean
  /**
   * Beyond the spec, `get` from a team database only (`ClientOptions.source`): the copy synced
   * from this machine, when the same session id was synced from several (default: the one
   * updated last; `export`, `diff` and windows always take that one).
   */
  machine?: string
}

export interface CostAggregationOptions {
  agent?: AgentName
  since?: Date
  until?: Date
  model?: string
  tags?: string[]
  /**
   * 'week', 'month', 'session' (unified id) and 'project' (`SessionSummary.project`) are beyond
   * the spec; so are 'machine' and 'user', which only a team database (`ClientOptions.source`)
   * answers.
   */
  groupBy?: 'agent' | 'model' | 'day' | 'tag' | 'week' | 'month' | 'session' | 'project' | 'machine' | 'user'
  /** Beyond the spec: the first day of a week for `groupBy: 'week'`. Default 'sunday'. */
  startOfWeek?: WeekDay
  /** Beyond the spec: only sessions started in this directory, as `SessionListOptions.cwd`. */
  cwd?: string
  /** Beyond the spec: only sessions that ran on this git branch, as `SessionListOptions.branch`. */
  branch?: string
  /** Beyond the spec: only sessions of this project, as `SessionListOptions.project`. */
  project?: string
  /** Beyond the spec: kept sessions whose source is gone, as `SessionListOptions.archived`. */
  archived?: 'include' | 'only' | 'exclude'
  /** Beyond the spec, a team database only (`ClientOptions.source`): sessions synced from this machine (its `amux sync --machine` name). */
  machine?: string
  /** Beyond the spec, a team database only: sessions synced by this OS user (`amux sync --user`). */
  user?: string
}

export interface CostSummary {
  totalUsd: number
  inputTokens: number
  outputTokens: number
  thinkingTokens: number
  cachedTokens: number
  /** Beyond the spec: prompt-cache writes, where agents report them (absent when none). */
  cacheWriteTokens?: number
  sessionCount: number
  /** Runs: each session counts max(1, its runs in the run index); each run index entry that matches no session counts 1. */
  runCount: number
  /**
   * Keys: agent name; model id as recorded; the local day 'YYYY-MM-DD' (process TZ) each usage was
   * spent on; tag; beyond the spec, the week's first day, the month 'YYYY-MM', the session's
   * unified id, the project. '' = no model / untagged / no cwd.
   */
  breakdowns?: Record<string, CostBreakdown>
  /** Beyond the spec: models that had usage but no known price (their cost counts as 0). */
  unpricedModels?: string[]
}

/** Beyond the spec: the options of `recap`. */
export interface RecapOptions {
  /** Sessions active at or after this moment (their last activity). Default: 24 hours ago. */
  since?: Date
  /** Sessions created at or before this moment. */
  until?: Date
  agent?: AgentName
  /** Only this project, as `SessionListOptions.project`. */
  project?: string
  /** How many of the sessions that edited a file each file names, the newest first. Default 3. */
  sessionsPerFile?: number
}

/** Beyond the spec: what `recap` answers. */
export interface Recap {
  since: Date
  until?: Date
  /** The most recently active first. */
  projects: ProjectRecap[]
  sessionCount: number
  totalUsd: number
}

export interface ProjectRecap {
  /** The project's directory ('' for sessions that record no directory). */
  project: string
  /** Its directory's name. */
  name: string
  agents: AgentName[]
  /** Newest activity first; sub-agents folded into the session that started them. */
  sessions: RecapSession[]
  /** The files the sessions edited or wrote in the period, the most lines changed first. */
  files: RecapFile[]
  linesAdded: number
  linesRemoved: number
  totalUsd: number
  lastActive: Date
}

export interface RecapSession {
  unifiedId: string
  agent: AgentName
  title: string
  createdAt: Date
  updatedAt: Date
  costUsd?: number
  children?: number
  gitBranch?: string
}

export interface RecapFile {
  path: string
  /** Edits and writes of it. */
  edits: number
  /** Lines added and removed, where the agents record them. */
  added: number
  removed: number
  /** How many sessions edited it. */
  sessionCount: number
  /**
   * The first of them (unified ids), newest first: at most `RecapOptions.sessionsPerFile`. Every
   * one: `sessions.touched(path, { action: 'edit', since })`.
   */
  sessions: string[]
}

export interface CostBreakdown {
  key: string
  totalUsd: number
  inputTokens: number
  outputTokens: number
  thinkingTokens: number
  cachedTokens: number
  /** Beyond the spec: prompt-cache writes, where agents report them (absent when none). */
  cacheWriteTokens?: number
  sessionCount: number
}

export interface SessionDiff {
  a: { agent: AgentName; sessionId: string; unifiedId: string }
  b: { agent: AgentName; sessionId: string; unifiedId: string }
  operations: DiffOperation[]
  stats: {
    removals: number
    additions: number
    modifications: number
    unchanged: number
  }
}

export interface DiffOperation {
  type: 'addition' | 'removal' | 'modification' | 'unchanged'
  indexA?: number
  indexB?: number
  messageA?: SessionMessage
  messageB?: SessionMessage
}

/** Beyond the spec: how a search call is run (not what it searches). */
export interface SearchCallOptions {
  /** Gives the search up when it aborts (`ABORTED`). */
  signal?: AbortSignal
}

export interface SessionManager {
  list(agent: AgentName, options?: SessionListOptions): Promise<SessionSummary[]>
  /**
   * Beyond the spec: every built-in agent's sessions in one list, with the same options as `list`
   * (filters, `sort`, `sortDirection`, `limit`, default 100) and in `list`'s order: by the sort
   * field, ties by `unifiedId`. It equals every agent's `list(agent, { ...options, limit })`
   * merged, sorted so, and cut to `limit`.
   */
  listAll(options?: SessionListOptions): Promise<SessionSummary[]>
  /** Beyond the spec: `options.redact`. */
  get(agent: AgentName, sessionId: string, options?: ReadOptions): Promise<Session>
  /**
   * Beyond the spec: `options.signal`, an AbortSignal. Once it aborts, the search stops at its
   * next stage and rejects with an `AgentMuxError` of code `ABORTED` (search-as-you-type gives up
   * the search a newer keystroke made obsolete).
   */
  search(query: SessionQuery, options?: SearchCallOptions): Promise<SessionSummary[]>
  totalCost(options?: CostAggregationOptions): Promise<CostSummary>
  /** Beyond the spec: what the agents did in a period, per project (a stand-up: `amux recap`). */
  recap(options?: RecapOptions): Promise<Recap>
  /**
   * Beyond the spec: the sessions whose tool calls touched a file, newest first (by their latest
   * such touch). `path` is a path or a glob (`*` within a directory, `**` across; a pattern that
   * starts with `**` matches anywhere); a relative one is taken from the current directory. A
   * glob that does not parse is a `VALIDATION_ERROR`; a file no session touched gives `[]`.
   */
  touched(path: string, options?: TouchedOptions): Promise<TouchedSession[]>
  /**
   * Beyond the spec: the files one session's tool calls touched, in the order of its messages
   * (`[]` for a session that touched none). `options.redact` as `get`'s.
   */
  touches(agent: AgentName, sessionId: string, options?: ReadOptions): Promise<FileTouch[]>
  /**
   * Beyond the spec: `options.redact` (without it, the text is exactly the spec's), and `'html'`,
   * the share file (one self-contained HTML document, no script, a CSP that lets nothing load).
   */
  export(
    agent: AgentName,
    sessionId: string,
    format: 'json' | 'jsonl' | 'markdown' | 'html',
    options?: ReadOptions,
  ): Promise<string>
  /** Beyond the spec: `options.redact`. */
  diff(
    a: { agent: AgentName; sessionId: string },
    b: { agent: AgentName; sessionId: string },
    options?: ReadOptions,
  ): Promise<SessionDiff>
  resolveUnifiedId(agent: AgentName, nativeSessionId: string): string
  resolveNativeId(unifiedId: string): { agent: AgentName; nativeSessionId: string } | null
}

/** Beyond the spec: what a tool call did to a file. `command`: a shell command ran in this directory or named this file. */
export type FileAction = 'edit' | 'write' | 'read' | 'delete' | 'command'

/** Beyond the spec: one file a session's tool call touched. */
export interface FileTouch {
  /** Absolute (against the session's directory) and normalised; `/` separators. */
  path: string
  action: FileAction
  /** When the call was made; null where the agent records no time. */
  at: Date | null
  /** The index in `Session.messages` of the message holding the call. */
  messageIndex: number
  /** Lines an edit or write added, where the call records them. */
  added?: number
  /** Lines an edit removed, where the call records them. */
  removed?: number
  /** The first line of the user's request that led to the call. */
  request?: string
}

/** Beyond the spec: a session that touched a file, with those touches (`touched`). */
export interface TouchedSession {
  unifiedId: string
  agent: AgentName
  sessionId: string
  title: string
  updatedAt: Date
  cwd?: string
  touches: FileTouch[]
}

/** Beyond the spec: the options of `touched`. */
export interface TouchedOptions {
  /** Only touches of this kind. */
  action?: FileAction
  agent?: AgentName
  /** Only touches made at or after this moment. */
  since?: Date
  /** Also the same path relative to its git repository in any other checkout (worktree or clone). */
  anyCheckout?: boolean
  /** Only sessions of this project: a directory (its git repository's, worktrees and subdirectories included) or a project directory's name. */
  project?: string
  /** At most this many sessions (default 100). */
  limit?: number
  /** Redact secrets in titles and requests; default: as the client does. */
  redact?: boolean
}

/** Beyond the spec's fields: per-model prices in USD per million tokens. */
export interface ModelPricing {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
}

/**
 * The spec's retry policy (core-types.md 5.1.1). Validated by `createClient`; see `ClientOptions`.
 */
export interface RetryPolicy {
  /** Integer >= 1. Default 3. */
  maxAttempts?: number
  /** Integer >= 0 (ms). Default 1000. */
  baseDelayMs?: number
  /** Integer >= baseDelayMs (the given one, else 1000) (ms). Default 30000. */
  maxDelayMs?: number
  /** From 0 to 1. Default 0.1. */
  jitterFactor?: number
  /** `ErrorCode` values. Default ['RATE_LIMITED', 'AGENT_CRASH', 'TIMEOUT']. */
  retryOn?: ErrorCode[]
}

/**
 * Options of `createClient`. Every value is checked when the client is made: a bad one throws
 * `AgentMuxError` `VALIDATION_ERROR` synchronously, its message starting with the field's name.
 *
 * `defaultAgent`, `defaultModel`, `approvalMode`, `timeout`, `inactivityTimeout`, `retryPolicy`,
 * `stream`, `projectConfigDir` and `debug` configure runs. This package only reads sessions and
 * starts no runs, so these are accepted and kept but change nothing here.
 */
export interface ClientOptions {
  /** A string (agents registered later by plugins are not known here). */
  defaultAgent?: AgentName
  defaultModel?: string
  /** Default 'prompt'. */
  approvalMode?: 'yolo' | 'prompt' | 'deny'
  /** Integer >= 0 (ms); 0 means none. Default 0. */
  timeout?: number
  /** Integer >= 0 (ms); 0 means none. Default 0. */
  inactivityTimeout?: number
  retryPolicy?: RetryPolicy
  /** Default 'auto'. */
  stream?: boolean | 'auto'
  /** Where the run index is read from (absolute). Default: `AGENT_MUX_CONFIG_DIR`, else `~/.agent-mux`. */
  configDir?: string
  /** An absolute path. */
  projectConfigDir?: string
  debug?: boolean
  /** Beyond the spec: read one agent's sessions from this directory (absolute) instead of its defaults. */
  sessionDirs?: Partial<Record<BuiltInAgentName, string>>
  /** Beyond the spec: price overrides keyed by model id (USD per million tokens). */
  pricing?: Record<string, ModelPricing>
  /**
   * Beyond the spec: where the persistent index lives (absolute), or `false` for none (every
   * call reads the stores). Default: `AGENT_MUX_CACHE_DIR`, else `$XDG_CACHE_HOME/agent-mux`, else
   * `~/.cache/agent-mux` (macOS `~/Library/Caches/agent-mux`, Windows `%LOCALAPPDATA%\agent-mux`);
   * `AGENT_MUX_NO_CACHE=1` turns it off.
   */
  cacheDir?: string | false
  /** Beyond the spec: told how building or updating the index advances (on the JS thread). */
  onProgress?: (progress: IndexProgress) => void
  /**
   * Beyond the spec: when the index takes in sessions that are new or changed since it was
   * written. A search answers the same either way.
   * - 'background' (default): a search never waits; it reads the changed sources itself, and a
   *   thread of this process writes them into the index afterwards. The thread does not keep
   *   the process alive: a process that exits before it is done hands the rest to a process of
   *   its own (see `indexChild`); `close()` waits for it.
   * - 'wait': a search writes them first, then answers from the index.
   * - 'deferred': a search never waits and writes nothing; `index.pending()` tells whether it
   *   left something, and `index.update()` writes it (the CLI does so in a detached process).
   */
  indexUpdates?: 'background' | 'wait' | 'deferred'
  /**
   * Beyond the spec: when this process exits while the index still has work its searches left
   * (a 'background' write not done, or a 'deferred' one not asked for), that work is handed to
   * a detached, low-priority Node process that brings the index up to date with the same
   * options, stores and cache, unless another process is writing it already (it is safe to
   * interrupt: the index commits as it goes). Default `true`; `false`: never start a process
   * (what this process does not write, the next search reads again). No index (`cacheDir:
   * false`, `AGENT_MUX_NO_CACHE=1`), no process. A closed client hands nothing on.
   */
  indexChild?: boolean
  /**
   * Beyond the spec: redact secrets in every result of this client (summaries' titles, every
   * text field of a session, search snippets, exports, diffs, message windows), each as
   * `[REDACTED:<rule>:<4 hex of its hash>]`: two mentions of one secret carry the same tag.
   * Each call may say otherwise with its own `redact`. Default `false`.
   */
  redact?: boolean
  /**
   * Beyond the spec: keep amux's own copy of every session it reads (in the data directory:
   * `AGENT_MUX_DATA_DIR`, else `$XDG_DATA_HOME/agent-mux`, else `~/.local/share/agent-mux`,
   * macOS `~/Library/Application Support/agent-mux`, Windows `%LOCALAPPDATA%\agent-mux`), so
   * that a session the agent deletes still answers, marked `archived`. Overrides the setting
   * `keep.set()` writes in the config directory; default: that setting, else off.
   */
  keep?: boolean
  /**
   * Beyond the spec: for a client that lives (a server, an app), learn what changed in the
   * stores from the OS's file events (Linux's inotify) instead of stat'ing every source at every
   * call. Answers are the same: a write finished before a call began is seen by that call; a
   * store that cannot be watched (a network file system, the watch limit reached, few sources)
   * is stat'ed as without it (`index.status().watch` says which and why). Needs the index
   * (`cacheDir`). Default `false`; `amux mcp` and `amux ui` turn it on.
   */
  watch?: boolean
  /**
   * Beyond the spec: read a team's database instead of this machine's agents: a PostgreSQL URL
   * (`postgres://user@host/db?sslmode=require`; credentials may instead come from the `PG*`
   * variables or `.pgpass`) that `amux sync` fills. list, search, get, export, diff, totalCost
   * and the cost reports answer from it, with `machine` and `user` as filters and `groupBy`
   * keys; a call it cannot answer (the index, `keep`, message windows, billing blocks) rejects
   * with `CAPABILITY_ERROR`. See docs/team.md.
   */
  source?: string
}

/** Beyond the spec: `done` of `total` changed sources of `agent` read into the index. */
export interface IndexProgress {
  agent: BuiltInAgentName
  done: number
  total: number
}

/** Beyond the spec: the persistent index's place, size and freshness. */
export interface IndexStatus {
  /** The cache directory, `null` when the index is off. */
  dir: string | null
  /** Bytes of the index files. */
  bytes: number
  sources: number
  sessions: number
  /** Sources the next search reads again (new, changed or gone since indexed). */
  stale: number
  /** Which stores this client learns the changes of from the OS (`watch: true`). */
  watch: WatchStatus
}

/** Beyond the spec: `IndexStatus.watch`. */
export interface WatchStatus {
  /** The client's `watch` option; `false`: every call stats every source. */
  on: boolean
  /** Why nothing is watched while on (no index, a platform whose events are not in order). */
  reason: string | null
  /** Directories watched (one watch each), across stores. */
  directories: number
  /** Times the kernel's queue of events overflowed (the stores were then listed again in full). */
  overflows: number
  /**
   * Searches that searched again what the one before made of the index (nothing had changed
   * since, so no store was compared with it), since the client was made.
   */
  reused: number
  /**
   * Searches that took in only the sources stamped again since the one before (compared with
   * the index by path, their documents written) and made what they search from its.
   */
  restamped: number
  /**
   * Each store this client has listed: watched, or stat'ed at every call and why; `listings`:
   * times it was listed in full (the first call, then whenever the events could not tell what
   * changed, or every call when not watched).
   */
  stores: Array<{ agent: BuiltInAgentName; watched: boolean; reason: string | null; directories: number; listings: number }>
}

/** Beyond the spec: `client.keep.status()`. */
export interface KeepStatus {
  on: boolean
  /** What decided `on`: the client's `keep` option, the setting, or neither (off). */
  origin: 'option' | 'setting' | 'default'
  /** The data directory the kept sessions live in. */
  dir: string
  /** The file the setting is written to (in the config directory). */
  settingFile: string
  /** Sessions kept, and of them those whose source is gone. */
  sessions: number
  archived: number
  /** Bytes of the kept store. */
  bytes: number
  /** Per agent with a retention setting: the sessions it will delete (older than `days`, or within a week of it) that are not kept. */
  retention: Array<{ agent: BuiltInAgentName; days: number | null; atRisk: number }>
  /** Kept files found damaged or missing (never served). */
  damaged: string[]
}

/** Beyond the spec: amux's own copy of the sessions it reads. */
export interface KeepManager {
  /** With `verify`, every kept chunk is read and checked against its hash (the cost of reading the whole store); else the catalog, the manifests, that each chunk is there, and the archived sessions by serving them. */
  status(options?: { verify?: boolean }): Promise<KeepStatus>
  /** Turn keeping on or off in the setting that lasts (a client's `keep` option still wins). */
  set(on: boolean): Promise<KeepStatus>
  /** Delete kept sessions: by unified or native id, or every one last updated before a date. */
  forget(options: { ids?: string[]; before?: Date | string }): Promise<{ forgotten: number }>
}

export interface IndexManager {
  status(): Promise<IndexStatus>
  /**
   * Bring the index up to date with the stores now, once this process's own writing of it is
   * done and, unless `ifIdle`, another process's (with `ifIdle` it is left to that process).
   */
  update(options?: { ifIdle?: boolean }): Promise<IndexStatus>
  /** Whether a search left new or changed sessions for `update()` (`indexUpdates: 'deferred'`). */
  pending(): boolean
  /**
   * Resolves once this client's calls under way have settled and no thread of this process is
   * writing the index it uses (`indexUpdates: 'background'`). Other processes are not waited for.
   */
  idle(): Promise<void>
  /** Delete the index and build it again for every agent. */
  rebuild(): Promise<IndexStatus>
  /** Delete the index; `false` when it is off. */
  clear(): Promise<boolean>
}

/** Beyond the spec: which of a session's messages `MessageReader.window` returns. */
export interface MessageWindowOptions {
  /**
   * Only the messages that hold a hit of this query (the query language of `search`; a message
   * holds a hit when a word or phrase that counts occurs in its text, thinking, tool calls or
   * tool output), with `context` messages on each side. A query with nothing searchable keeps
   * no message.
   */
  around?: string
  /** Messages kept on each side of a hit. Default 2. */
  context?: number
  /** Leave out the messages before this index (0-based, in the whole session). Default 0. */
  from?: number
  /** At most this many messages. Default: all. */
  limit?: number
  /**
   * Beyond the spec: redact secrets (API keys, tokens, private keys, passwords: gitleaks' rules
   * and ours) in what this call returns, each as `[REDACTED:<rule>:<4 hex>]`. Default: the
   * client's `redact`.
   */
  redact?: boolean
}

/** Beyond the spec: a message of a `MessageWindow` with its index in the whole session. */
export interface WindowMessage {
  index: number
  message: SessionMessage
}

/** Beyond the spec: part of one session's messages (`MessageReader.window`). */
export interface MessageWindow {
  /** The session without its messages; `messageCount` counts all of them. */
  session: SessionSummary
  /** With `around`: every message of the session that holds a hit, in order, with its best passage (`>>>hit<<<` marked). */
  hits?: Array<{ index: number; snippet: string }>
  /** The messages kept, in session order. */
  messages: WindowMessage[]
}

/** Beyond the spec: reading part of a session, for a reader that shows only a window of it. */
export interface MessageReader {
  /**
   * The messages of one session that `options` keeps (all of them by default), read without
   * `raw`, each as `get` returns it. Errors as `get`'s (`SESSION_NOT_FOUND`, `AGENT_NOT_FOUND`);
   * bad options are a `VALIDATION_ERROR`.
   */
  window(agent: AgentName, sessionId: string, options?: MessageWindowOptions): Promise<MessageWindow>
}

export type WeekDay = 'sunday' | 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday'

/** Beyond the spec: what `cost.daily|weekly|monthly|sessions` take. */
export interface CostReportOptions {
  /** One agent; default every agent. */
  agent?: AgentName
  /**
   * Only usage from this moment on (sessions: only sessions last active from then on). A string
   * 'YYYY-MM-DD' or 'YYYYMMDD' is that day's start in `timezone`.
   */
  since?: Date | string
  /** Only usage up to this moment; a day written as a string includes that whole day. */
  until?: Date | string
  /** An IANA zone for the calendar (days, weeks, months). Default: `TZ`, else the system's. */
  timezone?: string
  /** `weekly`: the first day of a week. Default 'sunday', as ccusage. */
  startOfWeek?: WeekDay
  /** Only sessions whose working directory is this one. */
  project?: string
  /** Only this model's usage. */
  model?: string
  /** Beyond the spec: kept sessions whose source is gone, as `SessionListOptions.archived`. */
  archived?: 'include' | 'only' | 'exclude'
  /** Periods by date, 'asc' unless asked; sessions by cost, 'desc' unless asked. */
  order?: 'asc' | 'desc'
  /** Only the last N periods (1: today, this week, this month), or the N sessions active last. */
  last?: number
  /** At most this many rows, the first in `order` (sessions: the costliest unless told). `totals` sums the rows returned. */
  limit?: number
  /** A team database only (`ClientOptions.source`): the sessions synced from this machine. */
  machine?: string
  /** A team database only: the sessions synced by this OS user. */
  user?: string
}

/** One model's share of a report row (`modelBreakdowns`). */
export interface ModelCostBreakdown {
  modelName: string
  agent: BuiltInAgentName
  inputTokens: number
  /** Includes reasoning (`thinkingTokens`), as ccusage counts output. */
  outputTokens: number
  cacheCreationTokens: number
  cacheReadTokens: number
  thinkingTokens: number
  cost: number
}

/** The token and cost fields of a row, named and meant as ccusage's. */
export interface UsageCost {
  /** Prompt tokens that were neither read from nor written to the cache. */
  inputTokens: number
  /** Includes reasoning, as ccusage counts output. */
  outputTokens: number
  /** Prompt-cache writes. */
  cacheCreationTokens: number
  /** Prompt-cache reads. */
  cacheReadTokens: number
  totalTokens: number
  /** USD: the agent's own cost where it records one, else an estimate (unknown prices count 0). */
  totalCost: number
  /** The reasoning part of `outputTokens`. */
  thinkingTokens: number
}

export interface UsageRow extends UsageCost {
  modelsUsed: string[]
  modelBreakdowns: ModelCostBreakdown[]
  agents: BuiltInAgentName[]
  /** Sessions that spent in the row. */
  sessionCount: number
}

export interface CostReportNotes {
  totals: UsageCost
  /** Models with tokens but no known price (their tokens count as $0). */
  unpricedModels: { agent: BuiltInAgentName; model: string }[]
  /** Sessions in range with no usage recorded at all, per agent: their cost is unknown (Cursor). */
  sessionsWithoutUsage: Partial<Record<BuiltInAgentName, number>>
}

export interface DailyReport extends CostReportNotes {
  daily: (UsageRow & { date: string })[]
}
export interface WeeklyReport extends CostReportNotes {
  /** `week`: the week's first day, 'YYYY-MM-DD'. */
  weekly: (UsageRow & { week: string })[]
}
export interface MonthlyReport extends CostReportNotes {
  monthly: (UsageRow & { month: string })[]
}
export interface SessionsReport extends CostReportNotes {
  sessions: (UsageRow & {
    sessionId: string
    agent: BuiltInAgentName
    unifiedId: string
    title: string
    /** The session's working directory. */
    projectPath?: string
    firstActivity: Date
    lastActivity: Date
  })[]
}

/** Beyond the spec: what `cost.blocks` takes. */
export interface CostBlocksOptions {
  /** Only this agent's blocks; default every agent that has billing blocks (Claude Code). Another known agent is a VALIDATION_ERROR. */
  agent?: AgentName
  /** Only blocks starting from then on (a 'YYYY-MM-DD' / 'YYYYMMDD' string: that local day). */
  since?: Date | string
  until?: Date | string
  timezone?: string
  project?: string
  /** By start time, 'asc' unless asked. */
  order?: 'asc' | 'desc'
  /** A block's length in hours. Default 5. */
  sessionLength?: number
  /** Only the active block. */
  active?: boolean
  /** Only blocks of the last three days, and the active one. */
  recent?: boolean
  /** Tokens a block may use, for the active block's `tokenLimitStatus`; 'max': the most a past block used. */
  tokenLimit?: number | 'max'
  /** Beyond the spec: kept sessions whose source is gone, as `SessionListOptions.archived`. */
  archived?: 'include' | 'only' | 'exclude'
}

/** One of Claude Code's 5-hour billing blocks, with ccusage's keys; or a gap between two. */
export interface BillingBlock {
  /** The start as ISO 8601; a gap's is 'gap-' and its start. */
  id: string
  startTime: Date
  endTime: Date
  /** The last request's time; `null` for a gap. */
  actualEndTime: Date | null
  isActive: boolean
  isGap: boolean
  /** Requests in the block. */
  entries: number
  tokenCounts: {
    inputTokens: number
    outputTokens: number
    cacheCreationInputTokens: number
    cacheReadInputTokens: number
  }
  totalTokens: number
  costUSD: number
  models: string[]
  /** Each model's share, costliest first. */
  modelBreakdowns: ModelCostBreakdown[]
  /** The active block's rate over the time between its first and last request. */
  burnRate: { tokensPerMinute: number; tokensPerMinuteForIndicator: number; costPerHour: number } | null
  /** The active block's usage at its end if that rate goes on. */
  projection: { totalTokens: number; totalCost: number; remainingMinutes: number } | null
  tokenLimitStatus?: { limit: number; projectedUsage: number; percentUsed: number; status: 'ok' | 'warning' | 'exceeds' }
  /** Sessions with requests in the block. */
  sessionCount: number
}

/** Beyond the spec: cost reports as ccusage users know them (same JSON keys). */
export interface CostReports {
  daily(options?: CostReportOptions): Promise<DailyReport>
  weekly(options?: CostReportOptions): Promise<WeeklyReport>
  monthly(options?: CostReportOptions): Promise<MonthlyReport>
  sessions(options?: CostReportOptions): Promise<SessionsReport>
  /** Claude Code's 5-hour billing blocks. */
  blocks(options?: CostBlocksOptions): Promise<{ blocks: BillingBlock[] }>
}

export interface AgentMuxClient {
  readonly sessions: SessionManager
  /** Beyond the spec: the persistent index. */
  readonly index: IndexManager
  /** Beyond the spec: amux's own copy of every session it reads. */
  readonly keep: KeepManager
  /** Beyond the spec: cost reports by day, week, month, session, and billing blocks. */
  readonly cost: CostReports
  /** Beyond the spec: windows of a session's messages. */
  readonly messages: MessageReader
  /**
   * Beyond the spec: close the client once its calls under way have settled and this process's
   * threads are done writing the index it uses, so that a script may remove the home or cache
   * right after (`index.idle()`, then no process is handed what its searches left). Every call
   * that answers with a promise after it rejects with `AgentMuxError` `INVALID_STATE_TRANSITION`; `close()` again resolves.
   */
  close(): Promise<void>
  /**
   * Beyond the spec: why each agent's sessions do or do not show up: where it looked and what
   * chose each place, what it found, what it passed over and why, format versions, retention;
   * then the index and the versions this process runs. Reads as much as one `listAll`.
   */
  doctor(): Promise<DoctorReport>
  /**
   * Beyond the spec: push this machine's sessions into a team database (PostgreSQL at `url`:
   * `postgres://user@host:port/db?sslmode=…`; what it leaves out comes from the `PG*` variables
   * and `.pgpass`). Incremental, one transaction per session, text redacted unless
   * `redact: false`. Errors: `AUTH_ERROR` (credentials refused), `CONFIG_ERROR` (no such
   * database, TLS, a schema newer than this amux), `TIMEOUT` (the server cannot be reached or the
   * connection was lost: nothing half-written stays), never holding the password.
   */
  sync(url: string, options?: SyncOptions): Promise<SyncResult>
}

/** Beyond the spec: `client.sync(url, options)`. */
export interface SyncOptions {
  /** The machine's name in the team database. Default: the host name. */
  machine?: string
  /** The user's name in the team database. Default: the OS user. */
  user?: string
  /** Replace secrets in the text pushed by `[REDACTED:<rule>:<hash>]`. Default true. */
  redact?: boolean
  /** Remove this machine's sessions no longer found here (default: kept, marked `deleted_at`). */
  prune?: boolean
  /** Told `{ agent: 'sync', done, total }` as sessions are written. Default: the client's. */
  onProgress?: (progress: { agent: 'sync' | BuiltInAgentName; done: number; total: number }) => void
}

/** Beyond the spec: what `client.sync` did. */
export interface SyncResult {
  /** Sessions written (new or changed); `appended` of them only had new messages added. */
  sessions: number
  appended: number
  /** Rows written. */
  messages: number
  usage: number
  /** Sessions unchanged since the last sync, and sessions that could not be read here. */
  unchanged: number
  skipped: number
  /** This machine's sessions in the database no longer found here (marked, or with `prune` removed). */
  gone: number
  /** The database's schema version before and after. */
  schemaFrom: number
  schemaTo: number
  ms: number
}

/** Beyond the spec: `client.doctor()`. */
export interface DoctorReport {
  agents: DoctorAgent[]
  index: IndexStatus & {
    /** When the last `index.update()`/`rebuild()` finished (epoch ms), and how long it took. */
    lastUpdateMs: number | null
    lastUpdateTookMs: number | null
  }
  /** How many sources were passed over, across agents: 0 when every store found was read. */
  skipped: number
  versions: { node: string; addon: string }
}

export interface DoctorAgent {
  agent: BuiltInAgentName
  /** Where the agent looked, in its order. */
  places: Array<{
    path: string
    /** The variable (or `'sessionDirs'`) that chose the place; `null`: the default under HOME. */
    chosenBy: string | null
    exists: boolean
  }>
  /** Files or databases read. */
  stores: number
  sessions: number
  /** Bytes of the stores and their side files. */
  bytes: number
  /** What was passed over, by reason, with the first few paths. */
  skipped: Array<{
    kind: 'unreadable' | 'unknown format version' | 'too large' | 'not understood'
    count: number
    first: Array<{ path: string; detail: string }>
  }>
  /** Format versions the newest stores declare (a writer's release, a format, a schema). */
  versions: Array<{ field: string; version: string; sources: number; newerThanKnown: boolean }>
  /** The agent's own setting that deletes its history, where it has one. */
  retention: {
    setting: string
    file: string
    /** `null`: deletion is off. */
    days: number | null
    default: boolean
    effect: string
    olderThanLimit: number
    closeToLimit: number
    closeAfterDays: number | null
  } | null
}

export type ErrorCode =
  | 'CAPABILITY_ERROR'
  | 'VALIDATION_ERROR'
  | 'AUTH_ERROR'
  | 'AGENT_NOT_FOUND'
  | 'AGENT_NOT_INSTALLED'
  | 'AGENT_CRASH'
  | 'SPAWN_ERROR'
  | 'TIMEOUT'
  | 'INACTIVITY_TIMEOUT'
  | 'PARSE_ERROR'
  | 'CONFIG_ERROR'
  | 'CONFIG_LOCK_ERROR'
  | 'SESSION_NOT_FOUND'
  | 'PROFILE_NOT_FOUND'
  | 'PLUGIN_ERROR'
  | 'RATE_LIMITED'
  | 'CONTEXT_EXCEEDED'
  | 'ABORTED'
  | 'RUN_NOT_ACTIVE'
  | 'STDIN_NOT_AVAILABLE'
  | 'NO_PENDING_INTERACTION'
  | 'INVALID_STATE_TRANSITION'
  | 'PTY_NOT_AVAILABLE'
  | 'INTERNAL'

export declare class AgentMuxError extends Error {
  readonly code: ErrorCode
  readonly recoverable: boolean
  constructor(code: ErrorCode, message: string, recoverable?: boolean)
}

export declare function createClient(options?: ClientOptions): AgentMuxClient

/** Beyond the spec: the built-in agent names, in the spec's order. */
export declare const BUILT_IN_AGENTS: readonly BuiltInAgentName[]
