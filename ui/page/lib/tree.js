// The plain nodes of render/ (markdown, highlighted code) as Preact elements: every piece of
// session text reaches the page as a text node, never as HTML.

import { h } from 'preact'

export function elements(nodes) {
  return nodes.map((node, key) => (typeof node === 'string' ? node : h(node.tag, { ...node.props, key }, elements(node.children))))
}
