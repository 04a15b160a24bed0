import cjs from './index.js'

export const { createClient, AgentMuxError, BUILT_IN_AGENTS } = cjs
export default cjs
