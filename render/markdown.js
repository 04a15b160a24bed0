// Markdown as a tree of plain nodes (`{ tag, props, children }` or a string of text), which the
// page turns into Preact elements and the share file into escaped HTML: both draw the same
// markdown. markdown-it parses with raw HTML off, so `<script>` in a message is text. Links are
// kept only for http(s) addresses (anything else stays the literal text that was typed) and open
// apart, with no referrer; images are shown as links, so nothing is loaded from elsewhere. With
// `links: false` (the share file, which points nowhere) an address is written out as text.

import MarkdownIt from 'markdown-it'
import { codeTree } from './highlight.js'

const md = new MarkdownIt({ html: false, linkify: false, typographer: false })
md.validateLink = (url) => /^https?:\/\//i.test(url.trim())

/** An http(s) address, the only kind of link kept. */
export const isWebLink = (url) => md.validateLink(url ?? '')

// Tags a token may become (markdown-it's own tag names); any other token shows its text.
const BLOCKS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 's'])

/** An element node. */
export const el = (tag, props, children = []) => ({ tag, props: props ?? {}, children })

// markdown-it's flat token list (open … close) as a tree of { token, children }.
function tokenTree(tokens) {
  const root = { children: [] }
  const stack = [root]
  for (const token of tokens) {
    const top = stack[stack.length - 1]
    if (token.nesting === 1) {
      const node = { token, children: [] }
      top.children.push(node)
      stack.push(node)
    } else if (token.nesting === -1) {
      if (stack.length > 1) stack.pop()
    } else {
      top.children.push({ token, children: token.children ? tokenTree(token.children) : [] })
    }
  }
  return root.children
}

const nodes = (list, options) => list.flatMap((n) => node(n, options))

function node({ token, children }, options) {
  const inner = () => nodes(children, options)
  switch (token.type) {
    case 'text':
    case 'text_special':
    case 'html_inline':
    case 'html_block':
      return [token.content]
    case 'inline':
      return inner()
    case 'softbreak':
      return ['\n']
    case 'hardbreak':
      return [el('br')]
    case 'hr':
      return [el('hr')]
    case 'code_inline':
      return [el('code', null, [token.content])]
    case 'fence':
    case 'code_block':
      return [codeTree(token.content.replace(/\n$/, ''), token.info)]
    case 'link_open': {
      const href = token.attrGet('href')
      if (!href || !isWebLink(href)) return inner()
      if (!options.links) return addressAfter(inner(), href)
      return [el('a', { href, rel: 'noopener noreferrer', target: '_blank', title: token.attrGet('title') ?? undefined }, inner())]
    }
    case 'image': {
      const src = token.attrGet('src')
      const text = `[image: ${token.content || 'image'}]`
      if (isWebLink(src) && !options.links) return addressAfter([text], src)
      return isWebLink(src) ? [el('a', { href: src, rel: 'noopener noreferrer', target: '_blank' }, [text])] : [text]
    }
    case 'paragraph_open':
      // Tight lists hide their paragraphs.
      return token.hidden ? inner() : [el('p', null, inner())]
    case 'ordered_list_open': {
      const start = Number(token.attrGet('start') ?? 1)
      return [el('ol', { start: Number.isFinite(start) ? start : 1 }, inner())]
    }
    case 'th_open':
    case 'td_open': {
      const align = /text-align:(left|right|center)/.exec(token.attrGet('style') ?? '')?.[1]
      return [el(token.tag, { class: align ? `align-${align}` : undefined }, inner())]
    }
    default:
      if (token.nesting === 1 && BLOCKS.has(token.tag)) return [el(token.tag, null, inner())]
      return children.length ? inner() : [token.content]
  }
}

// A link's text followed by its address, unless the text is the address.
function addressAfter(inner, href) {
  const shown = inner.length === 1 && inner[0] === href
  return shown ? inner : [...inner, el('span', { class: 'dim' }, [` (${href})`])]
}

/** `text` as Markdown: the nodes of a `<div class="markdown">`; `links: false` writes addresses as text. */
export function markdownTree(text, { links = true } = {}) {
  return nodes(tokenTree(md.parse(text ?? '', {})), { links })
}
