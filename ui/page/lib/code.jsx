// Code blocks, highlighted by lowlight (highlight.js's grammars, returning a syntax tree instead of
// HTML): the tree becomes elements here, so code is only ever text inside spans.

import { createLowlight, common } from 'lowlight'
import { useMemo } from 'preact/hooks'

const lowlight = createLowlight(common)

// Past this size a block is shown plain: highlighting it would hold up the page for little gain.
const HIGHLIGHT_MAX = 30_000

function toElements(nodes) {
  return nodes.map((node, i) => {
    if (node.type === 'text') return node.value
    const className = node.properties?.className
    return (
      <span key={i} class={Array.isArray(className) ? className.join(' ') : undefined}>
        {toElements(node.children ?? [])}
      </span>
    )
  })
}

function highlighted(code, language) {
  if (!language || code.length > HIGHLIGHT_MAX || !lowlight.registered(language)) return code
  try {
    return toElements(lowlight.highlight(language, code).children)
  } catch {
    return code
  }
}

/** A block of code, highlighted when its language is known (`language` as a fence names it). */
export function Code({ code, language, class: className }) {
  const lang = language?.trim().split(/\s+/)[0]?.toLowerCase()
  const spans = useMemo(() => highlighted(code, lang), [code, lang])
  return (
    <pre class={className ? `code ${className}` : 'code'}>
      <code class={lang ? `hljs language-${lang}` : 'hljs'}>{spans}</code>
    </pre>
  )
}
