// Session: the transcript, rendered. Messages come in windows (a 200 MB session never arrives
// whole): the first with the session's header, the next ones as the reader scrolls near the end.
// Thinking, tool calls, tool results and system prompts are folded; long texts are cut by the
// server, with "show all" asking for the message whole. Secrets are redacted by the server; the
// switch in the header shows them, for this page only (another session opens with them hidden).

import { Component } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, downloadUrl } from '../lib/api.js'
import { Link } from '../lib/router.js'
import { Markdown } from '../lib/markdown.jsx'
import { Code } from '../lib/code.jsx'
import { AgentBadge, ArchivedBadge, ErrorBox, Loading, sessionHref } from '../lib/parts.jsx'
import { bytes, clock, count, dateTime, plural, sessionCost, tokenLine, usd, costUnknown } from '../lib/format.js'

// How far below the screen the next window is asked for.
const PRELOAD_MARGIN = '2000px'

// What the server is asked for the page's texts: redacted (its default) unless shown.
const secretsParam = (shown) => (shown ? { redact: 'false' } : {})

export function SessionPage({ location }) {
  const id = location.params.get('id') ?? ''
  const [state, setState] = useState({ id: null, header: null, resume: null, total: 0, messages: [], next: null, error: null })
  // Whether this session's secrets are shown: kept with the session it was set on, and forgotten
  // when another one opens, so it never carries over (nor back).
  const [secrets, setSecrets] = useState({ id: null, shown: false })
  const shown = secrets.id === id && secrets.shown
  useEffect(() => () => setSecrets({ id: null, shown: false }), [id])
  const loadingMore = useRef(false)

  useEffect(() => {
    if (!id) return undefined
    const controller = new AbortController()
    // Another session starts afresh; the same one, its secrets shown or hidden, stays in place
    // until the new texts arrive.
    setState((s) => (s.id === id ? s : { id, header: null, resume: null, total: 0, messages: [], next: null, error: null }))
    api('session', { id, ...secretsParam(shown) }, { signal: controller.signal }).then(
      (w) => setState({ id, header: w.session, resume: w.resume, total: w.total, messages: w.messages, next: w.next, error: null }),
      (error) => error.name !== 'AbortError' && setState((s) => ({ ...s, error })),
    )
    return () => controller.abort()
  }, [id, shown])

  function loadMore() {
    if (loadingMore.current || state.next === null || state.id !== id) return
    loadingMore.current = true
    api('session', { id, from: state.next, ...secretsParam(shown) }).then(
      (w) => {
        loadingMore.current = false
        setState((s) => (s.id === id ? { ...s, total: w.total, messages: [...s.messages, ...w.messages], next: w.next } : s))
      },
      (error) => {
        loadingMore.current = false
        setState((s) => ({ ...s, error }))
      },
    )
  }

  function showAll(index) {
    api('session/message', { id, index, ...secretsParam(shown) }).then(
      ({ message }) => setState((s) => ({ ...s, messages: s.messages.map((m) => (m.index === index ? message : m)) })),
      (error) => setState((s) => ({ ...s, error })),
    )
  }

  if (!id) {
    return (
      <section class="page">
        <h1>Session</h1>
        <p>
          Open a session from <Link href="/search">Search</Link> or <Link href="/sessions">Sessions</Link>.
        </p>
      </section>
    )
  }
  const { header } = state
  return (
    <section class="page session-page">
      {state.error && <ErrorBox error={state.error} />}
      {!header && !state.error && <Loading what="Reading the session" />}
      {header && (
        <>
          <SessionHeader session={header} resume={state.resume} id={id} shown={shown} onSecrets={(on) => setSecrets({ id, shown: on })} />
          <ol class="transcript" aria-label="transcript">
            {state.messages.map((m) => (
              <Message key={m.index} message={m} onShowAll={showAll} />
            ))}
          </ol>
          {state.next !== null && <More onVisible={loadMore} shown={state.messages.length} total={state.total} />}
        </>
      )}
    </section>
  )
}

function SessionHeader({ session, resume, id, shown, onSecrets }) {
  return (
    <header class="session-header">
      <h1>{session.title || '(untitled)'}</h1>
      <SecretsSwitch shown={shown} onChange={onSecrets} />
      <dl class="facts">
        <div>
          <dt>session</dt>
          <dd>
            <AgentBadge agent={session.agent} /> <code class="id">{session.unifiedId}</code>
          </dd>
        </div>
        {session.cwd && (
          <div>
            <dt>cwd</dt>
            <dd>
              <code>{session.cwd}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>time</dt>
          <dd>
            {dateTime(session.createdAt)} → {dateTime(session.updatedAt)}
          </dd>
        </div>
        {session.model && (
          <div>
            <dt>model</dt>
            <dd>{session.model}</dd>
          </div>
        )}
        <div>
          <dt>size</dt>
          <dd>
            {plural(session.turnCount, 'turn')}, {plural(session.messageCount, 'message')}
          </dd>
        </div>
        <div>
          <dt>cost</dt>
          <dd>
            {sessionCost(session.cost)}
            {!costUnknown(session.cost) && <span class="dim"> · {tokenLine(session.cost)}</span>}
            {costUnknown(session.cost) && <span class="dim"> · this agent recorded no token counts</span>}
          </dd>
        </div>
        {session.tags?.length > 0 && (
          <div>
            <dt>tags</dt>
            <dd>{session.tags.join(', ')}</dd>
          </div>
        )}
        <Lineage id={id} shown={shown} archived={session.archived} />
        <Files id={id} shown={shown} />
      </dl>
      <div class="actions">
        <span class="label">export</span>
        {['json', 'jsonl', 'markdown'].map((format) => (
          <a key={format} class="button" href={downloadUrl('export', { id, format, ...secretsParam(shown) })} download data-format={format}>
            {format}
          </a>
        ))}
        <Link class="button" href={`/diff?a=${encodeURIComponent(id)}`}>
          compare…
        </Link>
      </div>
      {resume && <Resume command={resume} />}
    </header>
  )
}

// Whether the page shows the session's secrets, said plainly, and the switch that changes it.
function SecretsSwitch({ shown, onChange }) {
  return (
    <p class={`secrets ${shown ? 'shown' : 'hidden'}`}>
      <span class="state">{shown ? 'Secrets shown' : 'Secrets hidden'}</span>
      {' · '}
      <button type="button" role="switch" aria-checked={shown ? 'true' : 'false'} aria-label="show secrets" onClick={() => onChange(!shown)}>
        {shown ? 'Hide' : 'Show'}
      </button>
      {shown && <span class="dim"> on this page only: exports from here hold them too</span>}
    </p>
  )
}

// Forked from and continued in, asked for apart (it lists the agent's sessions): the transcript
// does not wait for it. The same list says whether the session is archived (kept by amux, its
// source deleted by the agent), when the transcript's own summary does not.
function Lineage({ id, shown, archived }) {
  const [lineage, setLineage] = useState(null)
  useEffect(() => {
    setLineage(null)
    const controller = new AbortController()
    api('session/lineage', { id, ...secretsParam(shown) }, { signal: controller.signal }).then(setLineage, () => {})
    return () => controller.abort()
  }, [id, shown])
  const isArchived = archived || lineage?.archived
  if (!isArchived && (!lineage || (!lineage.forkedFrom && lineage.continuedIn.length === 0))) return null
  const link = (s) => (
    <Link key={s.unifiedId} href={sessionHref(s.unifiedId)}>
      {s.title || s.unifiedId}
    </Link>
  )
  return (
    <>
      {isArchived && (
        <div>
          <dt>source</dt>
          <dd>
            <ArchivedBadge session={{ archived: true }} />
          </dd>
        </div>
      )}
      {lineage?.forkedFrom && (
        <div>
          <dt>forked from</dt>
          <dd class="lineage">{link(lineage.forkedFrom)}</dd>
        </div>
      )}
      {lineage?.continuedIn.length > 0 && (
        <div>
          <dt>continued in</dt>
          <dd class="lineage">{lineage.continuedIn.map(link)}</dd>
        </div>
      )}
    </>
  )
}

// The files the session's tool calls touched, one line each (what was done to it, the lines
// changed), each linking to every session that touched it (a search for `file:"<path>"`).
function Files({ id, shown }) {
  const [files, setFiles] = useState(null)
  useEffect(() => {
    setFiles(null)
    const controller = new AbortController()
    api('session/files', { id, ...secretsParam(shown) }, { signal: controller.signal }).then(({ files }) => setFiles(files), () => {})
    return () => controller.abort()
  }, [id, shown])
  if (!files || files.length === 0) return null
  const byPath = new Map()
  for (const t of files) {
    const f = byPath.get(t.path) ?? { path: t.path, actions: new Set(), added: 0, removed: 0, counted: false, first: t.messageIndex }
    f.actions.add(t.action)
    if (t.added !== undefined || t.removed !== undefined) {
      f.counted = true
      f.added += t.added ?? 0
      f.removed += t.removed ?? 0
    }
    byPath.set(t.path, f)
  }
  return (
    <div>
      <dt>files</dt>
      <dd>
        <ul class="files" aria-label="files touched">
          {[...byPath.values()].map((f) => (
            <li key={f.path}>
              <Link href={`/search?q=${encodeURIComponent(`file:"${f.path}"`)}`} title="every session that touched this file">
                <code>{f.path}</code>
              </Link>{' '}
              <span class="dim">{[...f.actions].join(', ')}</span>
              {f.counted && (
                <span class="dim">
                  {' '}
                  +{f.added} −{f.removed}
                </span>
              )}{' '}
              <a class="dim" href={`#m${f.first}`}>
                message {f.first}
              </a>
            </li>
          ))}
        </ul>
      </dd>
    </div>
  )
}

function Resume({ command }) {
  const [copied, setCopied] = useState(false)
  function copy() {
    navigator.clipboard?.writeText(command).then(
      () => {
        setCopied(true)
        setTimeout(() => setCopied(false), 1500)
      },
      () => {},
    )
  }
  return (
    <div class="resume">
      <span class="label">resume</span>
      <code>{command}</code>
      <button type="button" onClick={copy}>
        {copied ? 'copied' : 'copy'}
      </button>
    </div>
  )
}

// The end of the loaded messages: asks for the next window when it comes near the screen.
function More({ onVisible, shown, total }) {
  const marker = useRef(null)
  useEffect(() => {
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onVisible(), { rootMargin: PRELOAD_MARGIN })
    observer.observe(marker.current)
    return () => observer.disconnect()
  })
  return (
    <p class="state more" ref={marker} role="status">
      {count(shown)} of {count(total)} messages · loading more…
    </p>
  )
}

// A text the server cut: the part sent and a button for the rest.
const isCut = (t) => t && t.length > t.text.length

function ShowAll({ texts, index, onShowAll }) {
  const cut = texts.filter(isCut)
  if (!cut.length) return null
  const total = cut.reduce((n, t) => n + t.length, 0)
  return (
    <button type="button" class="show-all" onClick={() => onShowAll(index)}>
      show all ({bytes(total)})
    </button>
  )
}

// A message is drawn once: later windows (and "show all" on another message) leave it as it is.
class Message extends Component {
  shouldComponentUpdate(next) {
    return next.message !== this.props.message
  }

  render(props) {
    return <MessageBody {...props} />
  }
}

function MessageBody({ message: m, onShowAll }) {
  const tool = m.role === 'tool'
  const system = m.role === 'system'
  const body = m.text.text
  return (
    <li class={`msg role-${m.role}`} id={`m${m.index}`} data-index={m.index}>
      <div class="msg-head">
        <span class="role">
          {m.role}
          {m.subagent !== undefined && <span class="dim"> · subagent {m.subagent}</span>}
        </span>
        {m.timestamp && (
          <time dateTime={m.timestamp} title={dateTime(m.timestamp)}>
            {clock(m.timestamp)}
          </time>
        )}
        {m.model && <span class="model">{m.model}</span>}
        {m.tokenUsage && <span class="tokens">{tokenLine(m.tokenUsage)}</span>}
        {m.cost && !costUnknown(m.cost) && <span class="cost">{usd(m.cost.totalUsd)}</span>}
      </div>
      {m.thinking && (
        <details class="fold thinking">
          <summary>thinking</summary>
          <Markdown text={m.thinking.text} />
          <ShowAll texts={[m.thinking]} index={m.index} onShowAll={onShowAll} />
        </details>
      )}
      {tool && <ToolResult message={m} onShowAll={onShowAll} />}
      {system && body && (
        <details class="fold system">
          <summary>system · {bytes(m.text.length)}</summary>
          <pre class="output">{body}</pre>
          <ShowAll texts={[m.text]} index={m.index} onShowAll={onShowAll} />
        </details>
      )}
      {!tool && !system && body && (
        <>
          <Markdown text={body} />
          <ShowAll texts={[m.text]} index={m.index} onShowAll={onShowAll} />
        </>
      )}
      {m.toolCalls?.map((call) => (
        <ToolCall key={call.id} call={call} index={m.index} onShowAll={onShowAll} />
      ))}
    </li>
  )
}

function ToolCall({ call, index, onShowAll }) {
  const json = /^[[{]/.test(call.input.text)
  return (
    <details class="fold tool-call">
      <summary>
        <span class="tool-name">{call.name}</span>
        {call.preview && <span class="preview">{call.preview}</span>}
        {call.durationMs !== undefined && <span class="dim">{(call.durationMs / 1000).toFixed(1)} s</span>}
      </summary>
      <Code code={call.input.text} language={json ? 'json' : undefined} class="input" />
      {call.output && <pre class="output">{call.output.text}</pre>}
      {call.resultAt !== undefined && (
        <a class="dim" href={`#m${call.resultAt}`}>
          result: message {call.resultAt}
        </a>
      )}
      <ShowAll texts={[call.input, call.output]} index={index} onShowAll={onShowAll} />
    </details>
  )
}

function ToolResult({ message: m, onShowAll }) {
  const output = m.toolResult?.output ?? m.text
  return (
    <details class="fold tool-result">
      <summary>
        <span class="tool-name">{m.toolResult?.name ?? 'tool'}</span> <span class="dim">result · {bytes(output.length)}</span>
      </summary>
      <pre class="output">{output.text}</pre>
      <ShowAll texts={[output]} index={m.index} onShowAll={onShowAll} />
    </details>
  )
}
