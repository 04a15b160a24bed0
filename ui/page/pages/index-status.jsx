// Index: where the persistent index is, its size, what it holds and how fresh it is; then amux's
// own copies of the sessions (keep), and what each agent's retention will delete that is not kept.

import { ErrorBox, Loading, useApi } from '../lib/parts.jsx'
import { age, bytes, count, dateTime } from '../lib/format.js'
import { retentionSentence, atRisk, KEEP_COMMAND, KEEP_EFFECT } from '../../../human/keep.js'

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
      <KeepFacts />
    </section>
  )
}

const ORIGIN = { option: "by the client's keep option", setting: 'by the setting', default: 'the default' }

/** amux's kept copies: on or off and why, where, how much; the agents' retention beside them. */
function KeepFacts() {
  const { data, error } = useApi('keep', {}, 'keep')
  if (error) return <ErrorBox error={error} />
  if (!data) return null
  const risky = atRisk(data)
  return (
    <>
      <h2>Kept sessions</h2>
      <p class="help">
        When keep is on, amux keeps its own copy of every session it reads, so a session the agent deletes still answers everywhere, marked archived.
      </p>
      <dl class="facts index-facts keep-facts">
        <div>
          <dt>keep</dt>
          <dd>
            {data.on ? 'on' : 'off'} ({ORIGIN[data.origin]}
            {data.origin === 'setting' && (
              <>
                {' in '}
                <code>{data.settingFile}</code>
              </>
            )}
            )
          </dd>
        </div>
        <div>
          <dt>place</dt>
          <dd>
            <code>{data.dir}</code>
          </dd>
        </div>
        <div>
          <dt>kept</dt>
          <dd>
            {count(data.sessions)} sessions, {bytes(data.bytes)}
            {data.archived > 0 && `; ${count(data.archived)} archived (the agent deleted the source)`}
          </dd>
        </div>
        {data.damaged?.length > 0 && (
          <div>
            <dt>damaged</dt>
            <dd class="stale">
              {count(data.damaged.length)} kept files failed their checksum or are missing, and are never served: <code>{data.damaged.slice(0, 3).join(', ')}</code>
              {data.damaged.length > 3 && ', …'}
            </dd>
          </div>
        )}
        {data.retention.map((r) => (
          <div key={r.agent} class="retention">
            <dt>retention</dt>
            <dd class={r.atRisk > 0 ? 'stale' : 'fresh'}>{retentionSentence(r)}</dd>
          </div>
        ))}
      </dl>
      {!data.on && risky.length > 0 && (
        <p class="keep-hint">
          <code>{KEEP_COMMAND}</code> {KEEP_EFFECT}.
        </p>
      )}
    </>
  )
}
