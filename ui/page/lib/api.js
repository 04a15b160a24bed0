// The server's JSON API, as the pages call it. Errors arrive as `{ error: { code, message } }`.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** `?a=1&b=2` from an object, leaving out empty values ('' when nothing is left). */
export function query(params) {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value))
  }
  const text = search.toString()
  return text ? `?${text}` : ''
}

/** GET `/api/<path>` with `params`; resolves to the parsed answer or rejects with an ApiError. */
export async function api(path, params = {}, { signal } = {}) {
  const response = await fetch(`/api/${path}${query(params)}`, { signal, headers: { Accept: 'application/json' } })
  if (!response.ok) {
    const body = await response.json().catch(() => null)
    throw new ApiError(response.status, body?.error?.code ?? `HTTP_${response.status}`, body?.error?.message ?? response.statusText)
  }
  // Abandoned while the answer arrives: this rejects with the AbortError, which callers ignore.
  return response.json()
}

/** The address of a download of `path` (the browser carries the session's cookie). */
export const downloadUrl = (path, params) => `/api/${path}${query(params)}`
