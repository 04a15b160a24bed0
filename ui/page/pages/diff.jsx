// Diff: two sessions of any agents side by side, message by message as `sessions.diff` aligns
// them, with the changed words of a changed message marked, and the stats above. Long runs of
// unchanged messages are folded.

import { useState } from 'preact/hooks'
import { api } from '../lib/api.js'
import { Link, navigate } from '../lib/router.js'
import { ErrorBox, Loading, useApi, sessionHref } from '../lib/parts.jsx'
import { wordDiff } from '../../../human/words.js'

// Unchanged runs longer than this are folded, keeping CONTEXT messages at each end in sight.
const FOLD_OVER = 5
const CONTEXT = 1

export function DiffPage({ location }) {
  const a = location.params.get('a') ?? ''
  const b = location.params.get('b') ?? ''
  return (
    <section class="page diff-page">
      <h1>Diff</h1>
      <Picker a={a} b={b} />
      {a && b && <Comparison a={a} b={b} />}
    </section>
  )
}

// Two sessions, typed as the CLI takes them (agent:id, or a unique id prefix), or ticked in a list.
function Picker({ a, b }) {
  const [error, setError] = useState(null)
  async function submit(event) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    try {
      const [ra, rb] = await Promise.all(['a', 'b'].map((k) => api('resolve', { ref: String(form.get(k) ?? '').trim() })))
      setError(null)
      navigate(`/diff?a=${encodeURIComponent(ra.unifiedId)}&b=${encodeURIComponent(rb.unifiedId)}`)
    } catch (e) {
      setError(e)
    }
  }
  return (
    <form class="picker" onSubmit={submit} key={`${a} ${b}`}>
      <label>
        A <input name="a" type="text" defaultValue={a} placeholder="agent:id or id prefix" required />
      </label>
      <label>
        B <input name="b" type="text" defaultValue={b} placeholder="agent:id or id prefix" required />
      </label>
      <button type="submit">Compare</button>
      {!a || !b ? (
        <p class="hint">
          Or tick <em>compare</em> on two sessions in <Link href="/search">Search</Link> or <Link href="/sessions">Sessions</Link>.
        </p>
      ) : null}
      {error && <ErrorBox error={error} />}
    </form>
  )
}

function Comparison({ a, b }) {
  const { data, error, loading } = useApi('diff', { a, b }, `${a} ${b}`)
  if (error) return <ErrorBox error={error} />
  if (loading || !data) return <Loading what="Comparing" />
  const { stats } = data
  return (
    <>
      <p class="stats" role="status">
        <span class="unchanged">{stats.unchanged} unchanged</span> · <span class="modification">{stats.modifications} modified</span> ·{' '}
        <span class="addition">{stats.additions} added</span> · <span class="removal">{stats.removals} removed</span>
      </p>
      <div class="diff" role="table" aria-label="diff">
        <div class="diff-row diff-heads" role="row">
          <div role="columnheader">
            A · <Link href={sessionHref(data.a.unifiedId)}>{data.a.unifiedId}</Link>
          </div>
          <div role="columnheader">
            B · <Link href={sessionHref(data.b.unifiedId)}>{data.b.unifiedId}</Link>
          </div>
        </div>
        {folded(data.operations).map((item, i) => (item.fold ? <Fold key={`f${i}`} ops={item.fold} /> : <Row key={i} op={item} />))}
      </div>
    </>
  )
}

// The operations with each long unchanged run replaced by `{ fold: [...] }`.
function folded(operations) {
  const out = []
  let run = []
  const flush = () => {
    if (run.length > FOLD_OVER) out.push(...run.slice(0, CONTEXT), { fold: run.slice(CONTEXT, run.length - CONTEXT) }, ...run.slice(run.length - CONTEXT))
    else out.push(...run)
    run = []
  }
  for (const op of operations) {
    if (op.type === 'unchanged') run.push(op)
    else {
      flush()
      out.push(op)
    }
  }
  flush()
  return out
}

function Fold({ ops }) {
  const [open, setOpen] = useState(false)
  if (open) return ops.map((op, i) => <Row key={i} op={op} />)
  return (
    <div class="diff-row fold-row" role="row">
      <button type="button" onClick={() => setOpen(true)}>
        {ops.length} unchanged messages
      </button>
    </div>
  )
}

function Row({ op }) {
  let left = op.a?.text ?? ''
  let right = op.b?.text ?? ''
  if (op.type === 'modification') {
    const words = wordDiff(left, right)
    left = marked(words.a, 'del')
    right = marked(words.b, 'ins')
  }
  return (
    <div class={`diff-row ${op.type}`} role="row" data-type={op.type}>
      <Cell side={op.a} name="A" index={op.indexA} text={left} show={op.type !== 'addition'} />
      <Cell side={op.b} name="B" index={op.indexB} text={right} show={op.type !== 'removal'} />
    </div>
  )
}

// One side's words with each run of changed ones in one <del> or <ins>; the spaces after a run
// stay outside it, so the marks cover words only.
function marked(parts, Tag) {
  const out = []
  for (let i = 0; i < parts.length; ) {
    if (!parts[i].changed) {
      out.push(parts[i++].text)
      continue
    }
    let run = ''
    while (i < parts.length && parts[i].changed) run += parts[i++].text
    const words = run.trimEnd()
    out.push(<Tag key={i}>{words}</Tag>, run.slice(words.length))
  }
  return out
}

function Cell({ side, name, index, text, show }) {
  if (!show || !side) return <div class="cell empty" role="cell" />
  return (
    <div class="cell" role="cell">
      <div class="cell-head">
        <span class="side">{name}</span> <span class="role">{side.role}</span> <span class="dim">#{index}</span>
        {side.length > side.text.length && <span class="dim"> · first {side.text.length} characters</span>}
      </div>
      <div class="cell-text">{text}</div>
    </div>
  )
}
