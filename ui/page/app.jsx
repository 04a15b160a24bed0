// The page's frame: a header with the search box and the sections, and the section the address
// names below it.

import { useEffect, useRef } from 'preact/hooks'
import { Link, navigate, useLocation } from './lib/router.js'
import { SearchPage } from './pages/search.jsx'
import { SessionsPage } from './pages/sessions.jsx'
import { SessionPage } from './pages/session.jsx'
import { DiffPage } from './pages/diff.jsx'
import { CostPage } from './pages/cost.jsx'
import { IndexPage } from './pages/index-status.jsx'

const SECTIONS = [
  ['/search', 'Search'],
  ['/sessions', 'Sessions'],
  ['/diff', 'Diff'],
  ['/cost', 'Cost'],
  ['/index', 'Index'],
]

const PAGES = {
  '/': SearchPage,
  '/search': SearchPage,
  '/sessions': SessionsPage,
  '/session': SessionPage,
  '/diff': DiffPage,
  '/cost': CostPage,
  '/index': IndexPage,
}

// The search box edits the address: the first keystroke away from the search page opens it (a
// history entry), later ones replace the query in place, so back leaves the search at once.
function SearchBox({ location }) {
  const onSearch = location.path === '/search' || location.path === '/'
  const q = onSearch ? (location.params.get('q') ?? '') : undefined
  const box = useRef(null)
  useEffect(() => {
    if (onSearch && box.current && document.activeElement !== box.current) box.current.value = q
  }, [onSearch, q])
  function onInput(event) {
    const params = onSearch ? new URLSearchParams(location.params) : new URLSearchParams()
    params.set('q', event.currentTarget.value)
    params.delete('more')
    navigate(`/search?${params}`, { replace: onSearch })
  }
  function onKeyDown(event) {
    if (event.key === 'Escape') event.currentTarget.blur()
  }
  return (
    <input
      id="search-box"
      ref={box}
      type="search"
      placeholder="Search every session  ( / )"
      aria-label="Search every session"
      autocomplete="off"
      spellcheck={false}
      defaultValue={q ?? ''}
      onInput={onInput}
      onKeyDown={onKeyDown}
    />
  )
}

export function App() {
  const location = useLocation()
  const Page = PAGES[location.path] ?? NotFound
  useEffect(() => {
    const section = SECTIONS.find(([path]) => path === location.path)?.[1] ?? (location.path === '/session' ? 'Session' : 'Search')
    document.title = `${section} · amux`
  }, [location.path])
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">
          amux
        </Link>
        <nav>
          {SECTIONS.map(([path, label]) => (
            <Link key={path} href={path} aria-current={location.path === path || (path === '/search' && location.path === '/') ? 'page' : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <SearchBox location={location} />
      </header>
      <main id="main">
        <Page location={location} />
      </main>
    </>
  )
}

function NotFound({ location }) {
  return (
    <section class="page">
      <h1>Nothing here</h1>
      <p>
        There is no page at <code>{location.path}</code>. <Link href="/">Search</Link> instead.
      </p>
    </section>
  )
}
