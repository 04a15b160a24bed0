// Code blocks, highlighted by render/highlight.js (lowlight), as elements.

import { useMemo } from 'preact/hooks'
import { codeTree } from '../../../render/highlight.js'
import { elements } from './tree.js'

/** A block of code, highlighted when its language is known (`language` as a fence names it). */
export function Code({ code, language, class: className }) {
  return useMemo(() => elements([codeTree(code, language, className)])[0], [code, language, className])
}
