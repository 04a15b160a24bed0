'use strict'
// Parsers for option values. They throw InvalidArgumentError so a bad value is a usage error
// (exit 2) reported with the option's name, before any session is read.

const { resolve } = require('node:path')
const { InvalidArgumentError } = require('./cli.js')
const { readDate, DATE_SPELLINGS } = require('../../human/dates.js')

/** A date for --since/--until (see readDate): a bad one is a usage error naming the spellings. */
function parseDate(value, options) {
  const date = readDate(value, options)
  if (!date) throw new InvalidArgumentError(`Not a date: expected ${DATE_SPELLINGS}`)
  return date
}

const since = (value) => parseDate(value)
const until = (value) => parseDate(value, { endOfDay: true })

// A bare day as ccusage writes it (20260105) or as ISO 8601 does (2026-01-05).
const DAY = /^(\d{4})(-?)(\d{2})\2(\d{2})$/

/**
 * --since/--until of a cost report: a bare day stays a day, 'YYYY-MM-DD', which the report
 * places in its own time zone (--timezone), `until` up to that day's end; a time or an age is a
 * moment, as for the other commands.
 */
function reportDate(value, { endOfDay = false } = {}) {
  const day = DAY.exec(String(value).trim())
  if (!day) return parseDate(value, { endOfDay })
  const [, y, , mo, d] = day
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
  if (date.getUTCMonth() + 1 !== Number(mo) || date.getUTCDate() !== Number(d)) {
    throw new InvalidArgumentError(`Not a date: ${value}`)
  }
  return `${y}-${mo}-${d}`
}

const reportSince = (value) => reportDate(value)
const reportUntil = (value) => reportDate(value, { endOfDay: true })

/** A whole number from 1 up (--last, --token-limit). */
function positive(value) {
  if (!/^\d+$/.test(String(value).trim()) || Number(value) < 1) {
    throw new InvalidArgumentError('Not a whole number from 1 up')
  }
  return Number.parseInt(value, 10)
}

/** A number of hours above 0 (--session-length). */
function hours(value) {
  const n = Number(value)
  if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError('Not a number of hours above 0')
  return n
}

function limit(value) {
  if (!/^\d+$/.test(String(value).trim())) {
    throw new InvalidArgumentError('Not a whole number of results')
  }
  return Number.parseInt(value, 10)
}

// --tag may be given several times; each adds one tag (sessions with any of them match).
function collect(value, previous) {
  return previous ? [...previous, value] : [value]
}

// --cwd: a directory as the agents record it, absolute (`.` is where amux runs).
function directory(value) {
  if (!String(value).trim()) throw new InvalidArgumentError('Not a directory')
  return resolve(value)
}

module.exports = { parseDate, since, until, limit, collect, directory, reportSince, reportUntil, positive, hours }
