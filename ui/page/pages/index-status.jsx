// Index: where the persistent index is, its size, what it holds and how fresh it is.

import { ErrorBox, Loading, useApi } from '../lib/parts.jsx'
import { age, bytes, count, dateTime } from '../lib/format.js'

export function IndexPage() {
  const { data, error, loading } = useApi('index', {}, 'index')
  return (
    <section class="page index-page">
      <h1>Index</h1>
      <p class="help">
        <code>list</code>, <code>search</code> and <code>totalCost</code> keep what they read in this index. Every call compares each source with what the index
        recorded and reads only the changed ones again, so answers are never stale.
      </p>
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="Checking the index" />}
      {data && (
        <dl class="facts index-facts">
          <div>
            <dt>place</dt>
            <dd>{data.dir ? <code>{data.dir}</code> : 'off (AGENT_MUX_NO_CACHE)'}</dd>
          </div>
          <div>
            <dt>size</dt>
            <dd>{bytes(data.bytes)}</dd>
          </div>
          <div>
            <dt>sources</dt>
            <dd>{count(data.sources)}</dd>
          </div>
          <div>
            <dt>sessions</dt>
            <dd>{count(data.sessions)}</dd>
          </div>
          <div>
            <dt>freshness</dt>
            <dd class={data.stale ? 'stale' : 'fresh'}>
              {data.stale ? `${count(data.stale)} sources changed since they were indexed: the next search reads them again` : 'up to date: every source is indexed as it is now'}
            </dd>
          </div>
          {data.written && (
            <div>
              <dt>last written</dt>
              <dd>
                {dateTime(data.written)} ({age(data.written)})
              </dd>
            </div>
          )}
        </dl>
      )}
    </section>
  )
}
