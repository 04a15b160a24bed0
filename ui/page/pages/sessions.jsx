// Sessions: every agent's (or one agent's) sessions, newest first unless sorted otherwise, with the
// search page's filters, a page of PAGE_SIZE at a time.

import { useListKeys } from '../lib/keys.js'
import { Link } from '../lib/router.js'
import { Filters, filterParams, SessionRow, Loading, ErrorBox, useApi, useCompare, CompareBar, openSession } from '../lib/parts.jsx'
import { count } from '../lib/format.js'

const PAGE_SIZE = 50

export function SessionsPage({ location }) {
  const offset = Math.max(0, Number.parseInt(location.params.get('offset') ?? '0', 10) || 0)
  const params = { ...filterParams(location.params), offset, limit: PAGE_SIZE }
  const key = JSON.stringify(params)
  const { data, error, loading } = useApi('sessions', params, key)
  const compare = useCompare()
  const sessions = data?.sessions ?? []
  const selected = useListKeys(sessions.length, (i) => openSession(sessions[i]), key)

  const pageHref = (to) => {
    const next = new URLSearchParams(location.params)
    if (to > 0) next.set('offset', String(to))
    else next.delete('offset')
    const text = next.toString()
    return text ? `/sessions?${text}` : '/sessions'
  }

  return (
    <section class="page sessions-page">
      <h1>Sessions</h1>
      <Filters location={location} sorts={['date', 'cost', 'turns']} />
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="Listing sessions" />}
      {data && (
        <>
          <p class="count" role="status">
            {sessions.length ? `Sessions ${count(offset + 1)}–${count(offset + sessions.length)}` : 'No session matches'}
            {loading ? ' · loading…' : ''}
          </p>
          <ol class="rows" start={offset + 1}>
            {sessions.map((s, i) => (
              <SessionRow key={s.unifiedId} session={s} index={i} selected={i === selected} compare={compare} />
            ))}
          </ol>
          <nav class="pager" aria-label="pages">
            {offset > 0 ? <Link href={pageHref(Math.max(0, offset - PAGE_SIZE))}>← previous</Link> : <span />}
            {data.more ? <Link href={pageHref(offset + PAGE_SIZE)}>next →</Link> : <span />}
          </nav>
        </>
      )}
      <CompareBar compare={compare} />
    </section>
  )
}
