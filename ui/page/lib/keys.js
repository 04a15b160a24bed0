// Keyboard: `/` focuses the search box; on a list, j and k move the selection and Enter opens it.

import { useEffect, useRef, useState } from 'preact/hooks'

const typing = (target) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))

/** `/` anywhere but in a field: focus the search box. */
export function installSearchKey() {
  addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return
    const box = document.getElementById('search-box')
    if (!box) return
    event.preventDefault()
    box.focus()
    box.select()
  })
}

/**
 * The selected row of a list of `count` rows: j/k (and the arrows, from the search box) move it,
 * Enter calls `open(index)`. -1 when nothing is selected. Starts again at -1 when `resetKey` changes.
 * One listener for the list's life reads the latest values from a ref, so a key pressed right
 * after another acts on the row the first one selected.
 */
export function useListKeys(count, open, resetKey) {
  const [selected, setSelected] = useState(-1)
  const latest = useRef({ count, open, selected: -1 })
  latest.current.count = count
  latest.current.open = open
  useEffect(() => {
    latest.current.selected = -1
    setSelected(-1)
  }, [resetKey])
  useEffect(() => {
    function select(index) {
      latest.current.selected = index
      setSelected(index)
    }
    function onKey(event) {
      const { count, open, selected } = latest.current
      if (event.ctrlKey || event.metaKey || event.altKey || count === 0) return
      const inSearch = event.target?.id === 'search-box'
      if (typing(event.target) && !inSearch) return
      const down = (!inSearch && event.key === 'j') || (inSearch && event.key === 'ArrowDown')
      const up = (!inSearch && event.key === 'k') || (inSearch && event.key === 'ArrowUp')
      if (down || up) {
        event.preventDefault()
        select(down ? Math.min(count - 1, selected + 1) : Math.max(0, selected - 1))
      } else if (event.key === 'Enter' && selected >= 0 && selected < count) {
        event.preventDefault()
        open(selected)
      }
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [])
  useEffect(() => {
    if (selected >= 0) document.querySelector(`[data-row="${selected}"]`)?.scrollIntoView({ block: 'nearest' })
  }, [selected])
  return selected
}
