// Markdown as elements: render/markdown.js parses it (the share file draws the same nodes), and
// its nodes become Preact elements here.

import { useMemo } from 'preact/hooks'
import { markdownTree } from '../../../render/markdown.js'
import { elements } from './tree.js'

/** `text` rendered as Markdown (parsed once per text: the same elements are kept after). */
export function Markdown({ text }) {
  const children = useMemo(() => elements(markdownTree(text)), [text])
  return <div class="markdown">{children}</div>
}
