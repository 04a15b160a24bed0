// Markdown as elements: markdown-it parses (raw HTML is off, so `<script>` in a message is text),
// and its tokens become Preact elements here. Nothing is ever set as HTML: every piece of session
// text reaches the page as a text node. Links are kept only for http(s) addresses (anything else
// stays the literal text that was typed) and open apart from this page, with no referrer.

import MarkdownIt from 'markdown-it'
import { useMemo } from 'preact/hooks'
import { Code } from './code.jsx'

const md = new MarkdownIt({ html: false, linkify: false, typographer: false })
md.validateLink = (url) => /^https?:\/\//i.test(url.trim())

// Tags a token may become (markdown-it's own tag names); any other token shows its text.
const BLOCKS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 's'])

// markdown-it's flat token list (open … close) as a tree of { token, children }.
function tree(tokens) {
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
      top.children.push({ token, children: token.children ? tree(token.children) : [] })
    }
  }
  return root.children
}

function render(nodes) {
  return nodes.map((node, key) => element(node, key))
}

function element({ token, children }, key) {
  const inner = () => render(children)
  switch (token.type) {
    case 'text':
    case 'text_special':
    case 'html_inline':
    case 'html_block':
      return token.content
    case 'inline':
      return inner()
    case 'softbreak':
      return '\n'
    case 'hardbreak':
      return <br key={key} />
    case 'hr':
      return <hr key={key} />
    case 'code_inline':
      return <code key={key}>{token.content}</code>
    case 'fence':
    case 'code_block':
      return <Code key={key} code={token.content.replace(/\n$/, '')} language={token.info} />
    case 'link_open': {
      const href = token.attrGet('href')
      if (!href || !md.validateLink(href)) return inner()
      return (
        <a key={key} href={href} rel="noopener noreferrer" target="_blank" title={token.attrGet('title') ?? undefined}>
          {inner()}
        </a>
      )
    }
    case 'image': {
      // Shown as a link: the page loads nothing from elsewhere.
      const src = token.attrGet('src')
      const alt = token.content || 'image'
      return md.validateLink(src ?? '') ? (
        <a key={key} href={src} rel="noopener noreferrer" target="_blank">
          [image: {alt}]
        </a>
      ) : (
        `[image: ${alt}]`
      )
    }
    case 'paragraph_open':
      // Tight lists hide their paragraphs.
      return token.hidden ? inner() : <p key={key}>{inner()}</p>
    case 'ordered_list_open': {
      const start = Number(token.attrGet('start') ?? 1)
      return (
        <ol key={key} start={Number.isFinite(start) ? start : 1}>
          {inner()}
        </ol>
      )
    }
    case 'th_open':
    case 'td_open': {
      const align = /text-align:(left|right|center)/.exec(token.attrGet('style') ?? '')?.[1]
      const Tag = token.tag
      return (
        <Tag key={key} class={align ? `align-${align}` : undefined}>
          {inner()}
        </Tag>
      )
    }
    default: {
      if (token.nesting === 1 && BLOCKS.has(token.tag)) {
        const Tag = token.tag
        return <Tag key={key}>{inner()}</Tag>
      }
      return children.length ? inner() : token.content
    }
  }
}

/** `text` rendered as Markdown (parsed once per text: the same elements are kept after). */
export function Markdown({ text }) {
  const elements = useMemo(() => render(tree(md.parse(text ?? '', {}))), [text])
  return <div class="markdown">{elements}</div>
}
