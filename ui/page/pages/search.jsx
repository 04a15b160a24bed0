// Search: results as you type (debounced; a newer keystroke abandons the request before it), across
// every agent, with the filters and sort in the address.

import { useEffect, useState } from 'preact/hooks'
import { api } from '../lib/api.js'
import { useListKeys } from '../lib/keys.js'
import { Filters, filterParams, SessionRow, Loading, ErrorBox, useCompare, CompareBar, openSession } from '../lib/parts.jsx'
import { plural } from '../lib/format.js'

// Quiet time after a keystroke before asking: short enough to feel immediate, long enough that a
// word typed quickly is one request.
const DEBOUNCE_MS = 40

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
  const params = { q, ...filterParams(location.params) }
  const key = JSON.stringify(params)
  const [state, setState] = useState({ results: null, error: null, loading: false, for: null })
  const compare = useCompare()

  useEffect(() => {
    if (!q.trim()) {
      setState({ results: null, error: null, loading: false, for: key })
      return undefined
    }
    const controller = new AbortController()
    setState((s) => ({ ...s, loading: true }))
    const timer = setTimeout(() => {
      api('search', params, { signal: controller.signal }).then(
        (data) => setState({ results: data.results, error: null, loading: false, for: key }),
        (error) => error.name !== 'AbortError' && setState({ results: null, error, loading: false, for: key }),
      )
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [key])

  const results = state.results ?? []
  const selected = useListKeys(results.length, (i) => openSession(results[i]), key)

  return (
    <section class="page search-page">
      <h1 class="visually-hidden">Search</h1>
      <Filters location={location} sorts={['relevance', 'date', 'cost']} />
      {!q.trim() && <Help />}
      {state.error && <ErrorBox error={state.error} />}
      {q.trim() && state.results && (
        <p class="count" role="status" aria-busy={state.loading ? 'true' : 'false'}>
          {results.length ? plural(results.length, 'matching session') : 'No session matches'}
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
      <CompareBar compare={compare} />
    </section>
  )
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
