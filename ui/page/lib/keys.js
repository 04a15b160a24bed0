// Keyboard: `/` focuses the search box; on a list, j and k move the selection and Enter opens it.

import { useEffect, useState } from 'preact/hooks'

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
 */
export function useListKeys(count, open, resetKey) {
  const [selected, setSelected] = useState(-1)
  useEffect(() => setSelected(-1), [resetKey])
  useEffect(() => {
    function onKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey || count === 0) return
      const inSearch = event.target?.id === 'search-box'
      if (typing(event.target) && !inSearch) return
      const down = (!inSearch && event.key === 'j') || (inSearch && event.key === 'ArrowDown')
      const up = (!inSearch && event.key === 'k') || (inSearch && event.key === 'ArrowUp')
      if (down || up) {
        event.preventDefault()
        setSelected((s) => (down ? Math.min(count - 1, s + 1) : Math.max(0, s - 1)))
      } else if (event.key === 'Enter' && selected >= 0 && (!typing(event.target) || inSearch)) {
        event.preventDefault()
        open(selected)
      }
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [count, open, selected])
  useEffect(() => {
    if (selected >= 0) document.querySelector(`[data-row="${selected}"]`)?.scrollIntoView({ block: 'nearest' })
  }, [selected])
  return selected
}
