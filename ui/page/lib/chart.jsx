// A stacked bar chart of money per day, drawn as SVG: one <rect> per day and series (its figures
// in data attributes and a tooltip), d3-scale for the scales and their ticks. Sized by its box,
// so it fits a phone and a wide screen alike; colours come from the stylesheet.

import { scaleBand, scaleLinear } from 'd3-scale'
import { useEffect, useRef, useState } from 'preact/hooks'
import { usd } from './format.js'

const HEIGHT = 260
const MARGIN = { top: 12, right: 8, bottom: 28, left: 56 }

/** The chart at the width of its box (so its text keeps its size on a phone), redrawn on resize. */
export function StackedBarsFit(props) {
  const box = useRef(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry.contentRect.width)))
    observer.observe(box.current)
    return () => observer.disconnect()
  }, [])
  return <div class="chart-box" ref={box}>{width > 0 && <StackedBars {...props} width={width} />}</div>
}

/**
 * `days`: the x axis ('YYYY-MM-DD', in order); `series`: [{ key, label, color, days: { day: usd } }],
 * stacked in this order from the bottom. `width` is the drawing's own width in its units.
 */
export function StackedBars({ days, series, width = 960 }) {
  const inner = { w: width - MARGIN.left - MARGIN.right, h: HEIGHT - MARGIN.top - MARGIN.bottom }
  const totals = days.map((day) => series.reduce((n, s) => n + (s.days[day] ?? 0), 0))
  const y = scaleLinear().domain([0, Math.max(...totals, 0) || 1]).nice(5).range([inner.h, 0])
  const x = scaleBand().domain(days).range([0, inner.w]).paddingInner(days.length > 60 ? 0.1 : 0.25)
  const every = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor(inner.w / 80))))
  const ticks = y.ticks(5)
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-label="spend per day">
      <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
        {ticks.map((t) => (
          <g key={t} class="tick" transform={`translate(0,${y(t)})`}>
            <line x2={inner.w} />
            <text x={-6} dy="0.32em">
              {usd(t)}
            </text>
          </g>
        ))}
        {days.map((day, i) => {
          let base = 0
          return (
            <g key={day} class="day" data-day={day}>
              {series.map((s) => {
                const value = s.days[day] ?? 0
                if (value <= 0) return null
                const top = y(base + value)
                const height = y(base) - top
                base += value
                return (
                  <rect key={s.key} class={`bar ${s.color}`} x={x(day)} y={top} width={x.bandwidth()} height={Math.max(height, 0.5)} data-key={s.key} data-day={day} data-usd={value}>
                    <title>{`${day} · ${s.label}: ${usd(value)}`}</title>
                  </rect>
                )
              })}
              {i % every === 0 && (
                <text class="x-label" x={x(day) + x.bandwidth() / 2} y={inner.h + 18}>
                  {day.slice(5)}
                </text>
              )}
              <title>{`${day}: ${usd(totals[i])}`}</title>
            </g>
          )
        })}
        <line class="axis" y1={inner.h} y2={inner.h} x2={inner.w} />
      </g>
    </svg>
  )
}
