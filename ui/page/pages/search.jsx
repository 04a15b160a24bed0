// Search: results as you type (debounced; a newer keystroke abandons the request before it), across
// every agent, with the filters and sort in the address.

import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api } from '../lib/api.js'
import { useListKeys } from '../lib/keys.js'
import { Filters, filterParams, SessionRow, Loading, ErrorBox, useCompare, CompareBar, openSession } from '../lib/parts.jsx'
import { plural } from '../lib/format.js'
import { Link } from '../lib/router.js'

// A keystroke after a pause asks at once; one that follows another within QUIET_MS waits
// DEBOUNCE_MS for the next, so a word typed quickly asks once or twice, not once a letter.
const QUIET_MS = 150
const DEBOUNCE_MS = 40
// Results asked for as you type (a screenful and more); "more" asks for MORE_LIMIT.
const LIMIT = 25
const MORE_LIMIT = 200

const QUERY_HELP = [
  ['flaky test', 'every word, anywhere'],
  ['"flaky test"', 'these words in this order'],
  ['kubernetes OR docker', 'either side'],
  ['test NOT flaky', 'the left side, not the right one'],
  ['kube*', 'words starting with it'],
  ['大别山', 'CJK, no spaces needed'],
]

export function SearchPage({ location }) {
  const q = location.params.get('q') ?? ''
  const more = location.params.get('more') === '1'
  const params = { q, ...filterParams(location.params) }
  const key = JSON.stringify(params)
  const [state, setState] = useState({ results: null, error: null, loading: false, for: null })
  const compare = useCompare()
  const lastChange = useRef(0)

  // Asked in the layout phase: an effect would wait for the frame after the keystroke's render.
  useLayoutEffect(() => {
    if (!q.trim()) {
      setState({ results: null, error: null, loading: false, for: key })
      return undefined
    }
    const controller = new AbortController()
    setState((s) => ({ ...s, loading: true }))
    const now = performance.now()
    const delay = now - lastChange.current >= QUIET_MS ? 0 : DEBOUNCE_MS
    lastChange.current = now
    const timer = setTimeout(() => {
      api('search', { ...params, limit: more ? MORE_LIMIT : LIMIT }, { signal: controller.signal }).then(
        (data) => setState({ results: data.results, error: null, loading: false, for: key }),
        (error) => error.name !== 'AbortError' && setState({ results: null, error, loading: false, for: key }),
      )
    }, delay)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [key, more])

  const results = state.results ?? []
  const selected = useListKeys(results.length, (i) => openSession(results[i]), key)

  return (
    <section class="page search-page">
      <h1 class="visually-hidden">Search</h1>
      <Filters location={location} sorts={['relevance', 'date', 'cost']} />
      {!q.trim() && <Help />}
      {state.error && <ErrorBox error={state.error} />}
      {q.trim() && state.results && (
        <p class="count" role="status" aria-busy={state.loading ? 'true' : 'false'} data-for={state.for}>
          {results.length ? `${plural(results.length, 'matching session')}${!more && results.length === LIMIT ? ' shown' : ''}` : 'No session matches'}
          {state.loading ? ' · searching…' : ''}
        </p>
      )}
      {q.trim() && !state.results && !state.error && <Loading what="Searching" />}
      {results.length > 0 && (
        <ol class="rows results" data-for={state.for}>
          {results.map((s, i) => (
            <SessionRow key={s.unifiedId} session={s} index={i} selected={i === selected} search compare={compare} />
          ))}
        </ol>
      )}
      {!more && results.length === LIMIT && (
        <p>
          <Link class="button" href={`/search?${withMore(location.params)}`}>
            more results
          </Link>
        </p>
      )}
      <CompareBar compare={compare} />
    </section>
  )
}

function withMore(params) {
  const next = new URLSearchParams(params)
  next.set('more', '1')
  return next
}

function Help() {
  return (
    <div class="help">
      <p>Type to search the sessions of every agent. Case is ignored; OR and NOT are operators in capitals.</p>
      <table>
        <tbody>
          {QUERY_HELP.map(([example, meaning]) => (
            <tr key={example}>
              <td>
                <code>{example}</code>
              </td>
              <td>{meaning}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="keys">
        <kbd>/</kbd> search · <kbd>j</kbd> <kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>Esc</kbd> leave the box
      </p>
    </div>
  )
}
