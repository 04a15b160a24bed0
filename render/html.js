// Plain nodes (`{ tag, props, children }` or text) as HTML text. Every text and attribute value
// is escaped here, so session text can only ever be text in the file.

const TEXT = /[&<>]/g
const ATTRIBUTE = /[&<>"]/g
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }

export const escapeText = (text) => String(text).replace(TEXT, (c) => ENTITIES[c])
export const escapeAttribute = (text) => String(text).replace(ATTRIBUTE, (c) => ENTITIES[c])

// Elements with no closing tag.
const VOID = new Set(['br', 'hr'])

/** The nodes as HTML, appended to `out` (an array of strings, joined once at the end). */
export function writeNodes(out, nodes) {
  for (const node of nodes) {
    if (typeof node === 'string') {
      out.push(escapeText(node))
      continue
    }
    out.push('<', node.tag)
    for (const [name, value] of Object.entries(node.props ?? {})) {
      if (value !== undefined && value !== null && value !== false) out.push(' ', name, '="', escapeAttribute(value), '"')
    }
    out.push('>')
    if (VOID.has(node.tag)) continue
    writeNodes(out, node.children ?? [])
    out.push('</', node.tag, '>')
  }
  return out
}

/** The nodes as one HTML string. */
export const toHtml = (nodes) => writeNodes([], nodes).join('')
