// Addresses of the page: real paths and query strings (/search?q=…), so back, forward, reload and
// a kept link all work. Links move through history.pushState; the page reads location.

import { h } from 'preact'
import { useEffect, useState } from 'preact/hooks'

const listeners = new Set()
const current = () => ({ path: location.pathname, params: new URLSearchParams(location.search), href: location.pathname + location.search })

function changed() {
  for (const listener of listeners) listener(current())
}
addEventListener('popstate', changed)

/** Go to `href`: a new history entry, or the current one replaced (typing in a search box). */
export function navigate(href, { replace = false } = {}) {
  if (href === location.pathname + location.search) return
  history[replace ? 'replaceState' : 'pushState'](null, '', href)
  if (!replace) scrollTo(0, 0)
  changed()
}

/** The current location, kept up to date. */
export function useLocation() {
  const [location, setLocation] = useState(current)
  useEffect(() => {
    listeners.add(setLocation)
    return () => listeners.delete(setLocation)
  }, [])
  return location
}

// A plain click follows the link inside the page; a click with a modifier (new tab) is the browser's.
function follow(event, href) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(href)
}

export function Link({ href, children, ...rest }) {
  return h('a', { href, onClick: (e) => follow(e, href), ...rest }, children)
}
