// Code blocks, highlighted by lowlight (highlight.js's grammars, returning a syntax tree instead of
// HTML): the tree becomes plain nodes here, so code is only ever text inside spans.

import { createLowlight, common } from 'lowlight'

const lowlight = createLowlight(common)

// Past this size a block is shown plain: highlighting it would hold up the page for little gain.
const HIGHLIGHT_MAX = 30_000

function spans(nodes) {
  return nodes.map((node) => {
    if (node.type === 'text') return node.value
    const className = node.properties?.className
    return { tag: 'span', props: { class: Array.isArray(className) ? className.join(' ') : undefined }, children: spans(node.children ?? []) }
  })
}

/** `code` as the nodes of its highlighted text (one text node when its language is unknown). */
export function highlight(code, language) {
  if (!language || code.length > HIGHLIGHT_MAX || !lowlight.registered(language)) return [code]
  try {
    return spans(lowlight.highlight(language, code).children)
  } catch {
    return [code]
  }
}

/** A fence's language: its info string's first word, lowercased (undefined when none). */
export const fenceLanguage = (info) => info?.trim().split(/\s+/)[0]?.toLowerCase() || undefined

/** A block of code as a `<pre class="code">` node, highlighted when its language is known. */
export function codeTree(code, info, extraClass) {
  const lang = fenceLanguage(info)
  return {
    tag: 'pre',
    props: { class: extraClass ? `code ${extraClass}` : 'code' },
    children: [{ tag: 'code', props: { class: lang ? `hljs language-${lang}` : 'hljs' }, children: highlight(code, lang) }],
  }
}
