// Pieces several pages share: loading an API answer, the filter bar, a session's row in a list,
// a search snippet, and the states of a page (loading, error, nothing).

import { useEffect, useState } from 'preact/hooks'
import { api } from './api.js'
import { navigate, Link } from './router.js'
import { age, count, dateTime, sessionCost, plural } from './format.js'

/**
 * The answer of `api(path, params)`, asked again when `key` changes (a request still running is
 * abandoned). `{ data, error, loading }`.
 */
export function useApi(path, params, key) {
  const [state, setState] = useState({ data: null, error: null, loading: true })
  useEffect(() => {
    if (!path) return undefined
    const controller = new AbortController()
    setState((s) => ({ ...s, loading: true, error: null }))
    api(path, params, { signal: controller.signal }).then(
      (data) => setState({ data, error: null, loading: false }),
      (error) => {
        if (error.name !== 'AbortError') setState({ data: null, error, loading: false })
      },
    )
    return () => controller.abort()
  }, [path, key])
  return state
}

export const sessionHref = (unifiedId) => `/session?id=${encodeURIComponent(unifiedId)}`

export function AgentBadge({ agent }) {
  return <span class={`agent agent-${agent}`}>{agent}</span>
}

/** The mark of a session amux kept whose source the agent deleted (`archived: true`). */
export function ArchivedBadge({ session }) {
  if (!session.archived) return null
  return (
    <span class="archived" title="the agent deleted this session's source; amux kept a copy, which answers as the session did">
      archived: source deleted
    </span>
  )
}

// After this long, a loading line asks whether the index is being built, and says how far it is.
const SLOW_MS = 1000

export function Loading({ what = 'Loading' }) {
  const [progress, setProgress] = useState(null)
  useEffect(() => {
    let timer = setTimeout(function poll() {
      api('progress').then(
        (p) => setProgress(p.progress),
        () => {},
      )
      timer = setTimeout(poll, 500)
    }, SLOW_MS)
    return () => clearTimeout(timer)
  }, [])
  return (
    <p class="state loading" role="status">
      {what}…
      {progress && ` building the index: ${progress.agent} ${count(progress.done)} of ${count(progress.total)} sources`}
    </p>
  )
}

export function ErrorBox({ error }) {
  return (
    <p class="state error" role="alert">
      <strong>{error.code ?? 'ERROR'}</strong> {error.message}
    </p>
  )
}

/** A search snippet, its hits (marked `>>>hit<<<` by the API) highlighted. */
export function Snippet({ text }) {
  const parts = (text ?? '').split(/>>>|<<</)
  return <p class="snippet">{parts.map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : part))}</p>
}

/** One session in a list: title, agent, what it is about, where and when, and its cost. */
export function SessionRow({ session, index, selected, search, compare }) {
  const href = sessionHref(session.unifiedId)
  return (
    <li class={selected ? 'row selected' : 'row'} data-row={index} aria-selected={selected ? 'true' : undefined}>
      <div class="row-head">
        <AgentBadge agent={session.agent} />
        <Link class="title" href={href}>
          {session.title || '(untitled)'}
        </Link>
        <ArchivedBadge session={session} />
        <span class="cost" title="cost">
          {sessionCost(session.cost)}
        </span>
      </div>
      {search && <Snippet text={session.snippet} />}
      <div class="row-meta">
        {session.cwd && <span class="cwd" title="working directory">{session.cwd}</span>}
        <time dateTime={new Date(session.updatedAt).toISOString()} title={dateTime(session.updatedAt)}>
          {age(session.updatedAt)}
        </time>
        {search && session.relevanceScore !== undefined && <span title="relevance">score {session.relevanceScore.toFixed(2)}</span>}
        {search && session.matchCount !== undefined && <span>{plural(session.matchCount, 'match', 'matches')}</span>}
        {!search && <span>{plural(session.turnCount, 'turn')}</span>}
        {session.model && <span class="model">{session.model}</span>}
        {compare && (
          <label class="compare">
            <input type="checkbox" checked={compare.has(session.unifiedId)} onChange={() => compare.toggle(session.unifiedId)} /> compare
          </label>
        )}
      </div>
    </li>
  )
}

/** Two sessions ticked for comparison: a bar that opens the diff. */
export function useCompare() {
  const [picked, setPicked] = useState([])
  return {
    picked,
    has: (id) => picked.includes(id),
    toggle: (id) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2))),
  }
}

export function CompareBar({ compare }) {
  if (compare.picked.length === 0) return null
  const [a, b] = compare.picked
  return (
    <div class="compare-bar" role="region" aria-label="compare">
      {b ? (
        <Link class="button" href={`/diff?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`}>
          Compare the 2 sessions
        </Link>
      ) : (
        <span>Tick one more session to compare with {a}</span>
      )}
    </div>
  )
}

// The server's agents and version, asked once for the page's life.
let meta = null
export function useMeta() {
  const [value, setValue] = useState(meta)
  useEffect(() => {
    if (!value) api('meta').then((m) => setValue((meta = m)), () => {})
  }, [])
  return value ?? { agents: [], version: '' }
}

/**
 * The filter bar of the search and sessions pages: agent, since, until, cwd, model, archived
 * (sessions amux kept whose source the agent deleted) and sort, all
 * kept in the address. `sorts` are the orders the page offers (the first is the default).
 */
export function Filters({ location, sorts }) {
  const params = location.params
  const { agents } = useMeta()
  const active = ['agent', 'since', 'until', 'cwd', 'model', 'archived'].filter((n) => params.get(n)).length
  // Open on a wide screen; on a phone folded unless a filter is set.
  const [open, setOpen] = useState(() => active > 0 || matchMedia('(min-width: 641px)').matches)
  function set(name, value) {
    const next = new URLSearchParams(params)
    if (value) next.set(name, value)
    else next.delete(name)
    next.delete('offset')
    navigate(`${location.path}?${next}`, { replace: true })
  }
  const text = (name, label, placeholder) => (
    <label>
      {label}
      <input
        name={name}
        type="text"
        placeholder={placeholder}
        defaultValue={params.get(name) ?? ''}
        key={`${name}=${params.get(name) ?? ''}`}
        onChange={(e) => set(name, e.currentTarget.value.trim())}
      />
    </label>
  )
  return (
    <details class="filters-box" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>filters{active ? ` · ${active} set` : ''}</summary>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="filters">
        <label>
          agent
          <select name="agent" value={params.get('agent') ?? ''} onChange={(e) => set('agent', e.currentTarget.value)}>
            <option value="">every agent</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        {text('since', 'since', 'YYYY-MM-DD or 7d')}
        {text('until', 'until', 'YYYY-MM-DD')}
        {text('cwd', 'cwd', '/path/to/project')}
        {text('model', 'model', 'model id')}
        <label>
          archived
          <select name="archived" value={params.get('archived') ?? 'include'} onChange={(e) => set('archived', e.currentTarget.value === 'include' ? '' : e.currentTarget.value)}>
            <option value="include">include</option>
            <option value="only">only archived</option>
            <option value="exclude">exclude</option>
          </select>
        </label>
        <label>
          sort
          <select name="sort" value={params.get('sort') ?? sorts[0]} onChange={(e) => set('sort', e.currentTarget.value === sorts[0] ? '' : e.currentTarget.value)}>
            {sorts.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
    </details>
  )
}

/** The filter values of the address, as the API takes them. */
export function filterParams(params) {
  const out = {}
  for (const name of ['agent', 'since', 'until', 'cwd', 'model', 'archived', 'sort']) {
    const value = params.get(name)
    if (value) out[name] = value
  }
  return out
}

/** Open a session (from a list's keyboard selection). */
export const openSession = (session) => navigate(sessionHref(session.unifiedId))
